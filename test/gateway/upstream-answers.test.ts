import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicMessage,
} from '../helpers/anthropic-upstream'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import {
  gatewayHandler,
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
  geminiResponse,
} from '../helpers/gemini-upstream'
import {
  chatCompletion,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
} from '../helpers/upstream'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

type Family = 'openai' | 'anthropic' | 'gemini'

const maxResponseBytes = 4096
const openaiUpstream = createMockUpstream()
const behaviour: Record<'anthropic' | 'gemini', UpstreamBehaviour> = {
  anthropic: { kind: 'json', body: {} },
  gemini: { kind: 'json', body: {} },
}
let handler: GatewayHandler
let meter: ReturnType<typeof buildGateway>['meter']
openaiUpstream.server.use(
  ...anthropicHandlers({ calls: [], behaviour: () => behaviour.anthropic }),
  ...geminiHandlers({ calls: [], behaviour: () => behaviour.gemini }),
  gatewayHandler(gatewayUrl, () => handler),
)
beforeAll(() => {
  openaiUpstream.server.listen({ onUnhandledRequest: 'error' })
  // Upstream failures follow one another through one gateway here: with circuit breakers on, a
  // 429 would make the gateway answer the next calls itself (upstream-health.test.ts tests that).
  const built = buildGateway({
    groups: [
      {
        id: 'o',
        protocol: 'openai',
        models: ['openai-model'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'a',
        protocol: 'anthropic',
        models: ['anthropic-model'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'g',
        protocol: 'gemini',
        models: ['gemini-model'],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
    ],
    keys: [{ key: keys.main }],
    maxResponseBytes,
  })
  handler = built.gateway
  meter = built.meter
})
afterAll(() => openaiUpstream.server.close())

const cdnPage = '<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1>cloudflare</body></html>'
const html = (status = 200): UpstreamBehaviour => ({
  kind: 'raw',
  status,
  body: cdnPage,
  headers: { 'content-type': 'text/html; charset=utf-8' },
})
const long = 'x'.repeat(maxResponseBytes)

/** Answers each upstream family gives that look like success and are not. */
const badAnswers: Record<
  'html' | 'truncated' | 'tooLarge' | 'htmlToStream' | 'garbageStream',
  { stream: boolean; message: RegExp; upstream: Record<Family, UpstreamBehaviour> }
> = {
  html: {
    stream: false,
    message: /answered with text\/html instead of JSON/,
    upstream: { openai: html(), anthropic: html(), gemini: html() },
  },
  truncated: {
    stream: false,
    message: /not a JSON object/,
    upstream: {
      openai: {
        kind: 'raw',
        body: JSON.stringify(chatCompletion('Paris')).slice(0, 80),
        headers: { 'content-type': 'application/json' },
      },
      anthropic: {
        kind: 'raw',
        body: JSON.stringify(anthropicMessage([{ type: 'text', text: 'Paris' }])).slice(0, 80),
        headers: { 'content-type': 'application/json' },
      },
      gemini: {
        kind: 'raw',
        body: 'garbage, not JSON at all',
        headers: { 'content-type': 'application/json' },
      },
    },
  },
  tooLarge: {
    stream: false,
    message: /upstream answer is too large/,
    upstream: {
      openai: { kind: 'json', body: chatCompletion(long) },
      anthropic: { kind: 'json', body: anthropicMessage([{ type: 'text', text: long }]) },
      gemini: { kind: 'json', body: geminiResponse([{ text: long }]) },
    },
  },
  htmlToStream: {
    stream: true,
    message: /answered a stream request with text\/html/,
    upstream: { openai: html(), anthropic: html(), gemini: html() },
  },
  garbageStream: {
    stream: true,
    message: /not server-sent events/,
    upstream: {
      openai: garbageStream(),
      anthropic: garbageStream(),
      gemini: garbageStream(),
    },
  },
}

/** An HTML page served as `text/event-stream`, far longer than the reader's patience. */
function garbageStream(): UpstreamBehaviour {
  return {
    kind: 'raw',
    body: `${cdnPage}\n`.repeat(400),
    headers: { 'content-type': 'text/event-stream' },
  }
}

/** What a client saw of a failed call: the status and message its SDK reported. */
type Failure = { status: number | undefined; message: string }

async function failureOf(run: () => Promise<unknown>): Promise<Failure> {
  try {
    await run()
  } catch (error) {
    const { status, message } = error as { status?: number; message: string }
    return { status, message }
  }
  throw new Error('The call did not fail.')
}

const openaiSdk = () =>
  new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(handler),
    maxRetries: 0,
  })
const anthropicSdk = () =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetchThrough(handler),
    maxRetries: 0,
  })
const genaiSdk = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })

/** Each client SDK's call, JSON or stream, read to the end. */
const clients: Record<Family, (model: string, stream: boolean) => Promise<unknown>> = {
  openai: async (model, stream) => {
    const messages = [{ role: 'user' as const, content: 'Capital?' }]
    if (!stream) return openaiSdk().chat.completions.create({ model, messages })
    for await (const chunk of await openaiSdk().chat.completions.create({
      model,
      messages,
      stream: true,
    }))
      void chunk
  },
  anthropic: async (model, stream) => {
    const request = { model, max_tokens: 50, messages: [{ role: 'user' as const, content: 'Hi' }] }
    if (!stream) return anthropicSdk().messages.create(request)
    return anthropicSdk().messages.stream(request).finalMessage()
  },
  gemini: async (model, stream) => {
    if (!stream) return genaiSdk().models.generateContent({ model, contents: 'Capital?' })
    for await (const chunk of await genaiSdk().models.generateContentStream({
      model,
      contents: 'Capital?',
    }))
      void chunk
  },
}

/** Google answers an unusable upstream with 503 UNAVAILABLE, the others with 502 (docs/protocols.md). */
const expectedStatus: Record<Family, number> = { openai: 502, anthropic: 502, gemini: 503 }

const families: Family[] = ['openai', 'anthropic', 'gemini']
const cells = families.flatMap((client) => families.map((group) => [client, group] as const))

describe.each(cells)(
  '%s client, %s group: a 2xx that is not what the protocol sends',
  (client, group) => {
    for (const [name, bad] of Object.entries(badAnswers)) {
      it(`${name} (${bad.stream ? 'stream' : 'JSON'} request) is a ${expectedStatus[client]} upstream error, recorded as error with no usage`, async () => {
        if (group === 'openai') openaiUpstream.answer(bad.upstream.openai)
        else behaviour[group] = bad.upstream[group]
        const before = meter.records().length
        const failure = await failureOf(() => clients[client](`${group}-model`, bad.stream))
        expect(failure.status).toBe(expectedStatus[client])
        expect(failure.message).toMatch(bad.message)
        expect(failure.message).not.toContain('cloudflare')
        const records = meter.records().slice(before)
        expect(records).toHaveLength(1)
        expect(records[0]).toMatchObject({ outcome: 'error', status: 502, estimated: false })
        expect(records[0]!.usage).toBeUndefined()
      })
    }
  },
)
