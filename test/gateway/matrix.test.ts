import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import { anthropicApiKey, anthropicBaseUrl, anthropicHandlers } from '../helpers/anthropic-upstream'
import { buildGateway, gatewayUrl, keys } from '../helpers/gateway'
import {
  gatewayHandler,
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
} from '../helpers/gemini-upstream'
import { responsesApiKey, responsesBaseUrl, responsesHandlers } from '../helpers/responses-upstream'
import {
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'
import { imageBase64, matrixClients } from './matrix/clients'
import { modelNameClients } from './matrix/model-names'
import { families, reportedUsage, upstreamAnswers, type Family } from './matrix/upstream-answers'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

/**
 * The client × group matrix: the four client protocols (chat-completions, messages, Gemini native,
 * Responses) through their official SDKs, against the four upstream kinds (openai, anthropic,
 * gemini, and an openai group whose upstream is marked `responses: true`). The diagonal cells and
 * Responses against the marked upstream are passthrough; every other cell is translated.
 */
const openaiUpstream = createMockUpstream()
const calls: Record<Family, UpstreamCallRecord[]> = {
  openai: openaiUpstream.calls,
  anthropic: [],
  gemini: [],
  responses: [],
}
const behaviour: Record<Family, UpstreamBehaviour> = {
  openai: { kind: 'json', body: {} },
  anthropic: { kind: 'json', body: {} },
  gemini: { kind: 'json', body: {} },
  responses: { kind: 'json', body: {} },
}
let handler: GatewayHandler
let meter: ReturnType<typeof buildGateway>['meter']
openaiUpstream.server.use(
  ...anthropicHandlers({ calls: calls.anthropic, behaviour: () => behaviour.anthropic }),
  ...geminiHandlers({ calls: calls.gemini, behaviour: () => behaviour.gemini }),
  ...responsesHandlers({ calls: calls.responses, behaviour: () => behaviour.responses }),
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
        models: [{ name: 'openai-model', upstreamModel: 'openai-upstream' }],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'a',
        protocol: 'anthropic',
        models: [{ name: 'anthropic-model', upstreamModel: 'anthropic-upstream' }],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'g',
        protocol: 'gemini',
        models: [{ name: 'gemini-model', upstreamModel: 'gemini-upstream' }],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
      {
        id: 'r',
        protocol: 'openai',
        models: [{ name: 'responses-model', upstreamModel: 'responses-upstream' }],
        upstreams: [{ baseUrl: responsesBaseUrl, apiKey: responsesApiKey, responses: true }],
      },
    ],
    keys: [{ key: keys.main }],
  })
  handler = built.gateway
  meter = built.meter
})
afterAll(() => openaiUpstream.server.close())

const clients = matrixClients(() => handler)
const namers = modelNameClients(() => handler)
const cells = families.flatMap((client) => families.map((group) => [client, group] as const))

describe.each(cells)('%s client × %s group', (client, group) => {
  const model = `${group}-model`
  const answer = (kind: keyof (typeof upstreamAnswers)['openai']) => {
    behaviour[group] = upstreamAnswers[group][kind]
    if (group === 'openai') openaiUpstream.answer(upstreamAnswers.openai[kind])
  }

  it('answers text and meters exactly the usage the upstream reported', async () => {
    answer('text')
    expect(await clients[client].text(model)).toBe('Paris')
    expect(meter.records().at(-1)).toMatchObject({
      outcome: 'ok',
      usage: reportedUsage[group].text,
    })
  })

  it('streams text and meters exactly the usage the upstream reported', async () => {
    answer('stream')
    expect(await clients[client].stream(model)).toBe('Paris')
    expect(meter.records().at(-1)).toMatchObject({
      outcome: 'ok',
      usage: reportedUsage[group].stream,
    })
  })

  it('names the model as the client called it, JSON and stream; the upstream model in a header', async () => {
    // Every upstream answer here names a model of its own ('m', 'claude-sonnet-4-5-20250929', …).
    answer('text')
    const upstreamModel = `${group}-upstream`
    expect(await namers[client].json(model)).toEqual({
      named: [model],
      upstreamHeader: upstreamModel,
    })
    answer('stream')
    const streamed = await namers[client].stream(model)
    expect(streamed.named.length).toBeGreaterThan(0)
    expect(new Set(streamed.named)).toEqual(new Set([model]))
    expect(streamed.upstreamHeader).toBe(upstreamModel)
  })

  it('returns a tool call', async () => {
    answer('tool')
    expect(await clients[client].tool(model)).toEqual({
      name: 'get_weather',
      args: { city: 'Paris' },
    })
  })

  it('streams a tool call', async () => {
    answer('streamTool')
    expect(await clients[client].streamTool(model)).toEqual({
      name: 'get_weather',
      args: { city: 'Paris' },
    })
  })

  it('carries a tool result to the upstream', async () => {
    answer('text')
    expect(await clients[client].toolResult(model)).toBe('Paris')
    const sent = calls[group].at(-1)!.body
    expect(sent).toContain('sunny')
    expect(sent).toContain('get_weather')
  })

  it('carries an image to the upstream, the same bytes in its form', async () => {
    answer('text')
    expect(await clients[client].image(model)).toBe('Paris')
    const sent = calls[group].at(-1)!.body
    // Each vendor's own field for inline image bytes, holding the client's base64 unchanged.
    const field = {
      openai: 'image_url',
      anthropic: 'media_type',
      gemini: 'inlineData',
      responses: 'input_image',
    }
    expect(sent).toContain(imageBase64)
    expect(sent).toContain(field[group])
  })

  it('relays an upstream 429 as 429', async () => {
    answer('error')
    expect(await clients[client].status(model)).toBe(429)
  })

  it('throws after the partial text when the upstream fails mid-stream', async () => {
    answer('failing')
    const { text, error } = await clients[client].failing(model)
    expect(text).toBe('Paris')
    expect(error).toBeInstanceOf(Error)
  })
})
