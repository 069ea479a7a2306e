import { http, HttpResponse } from 'msw'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { RequestEvent } from '../../src/index'
import { formatRequestLog } from '../../src/node/cli/request-log'
import {
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicTextFrames,
} from '../helpers/anthropic-upstream'
import { buildGateway, gatewayUrl, keys } from '../helpers/gateway'
import { geminiBaseUrl, geminiHandlers, geminiTextFrames } from '../helpers/gemini-upstream'
import {
  chatStreamFrames,
  createMockUpstream,
  upstreamBaseUrl,
  type UpstreamBehaviour,
} from '../helpers/upstream'

type Family = 'openai' | 'anthropic' | 'gemini'

/** Realistic random keys, one per upstream, and a signing token in a configured header. */
const secrets = {
  openai: 'sk-proj-Q7vX2mK9pL4rT8wZ1nB6cD3fG5hJ0kAa',
  anthropic: 'sk-ant-api03-Hq8Lw2Zr5Vt9Xy3Bn6Mc1Kd4Fg7Js0Pa',
  gemini: 'AIzaSyD4k9Qm2Lx7Rt5Wv8Zb3Nc6Hf1Jg0Kp',
  header: 'tok_live_Z8x2C6v9B1n4M7q3W5e0R',
} as const

const openaiUpstream = createMockUpstream()
const behaviour: Record<'anthropic' | 'gemini', UpstreamBehaviour> = {
  anthropic: { kind: 'json', body: {} },
  gemini: { kind: 'json', body: {} },
}
const evilCalls: Request[] = []
openaiUpstream.server.use(
  ...anthropicHandlers({ calls: [], behaviour: () => behaviour.anthropic }),
  ...geminiHandlers({ calls: [], behaviour: () => behaviour.gemini }),
  http.all('https://evil.test/*', ({ request }) => {
    evilCalls.push(request)
    return HttpResponse.json({ stolen: true })
  }),
)
beforeAll(() => openaiUpstream.server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => {
  evilCalls.length = 0
  vi.restoreAllMocks()
})
afterAll(() => openaiUpstream.server.close())

function setup() {
  return buildGateway({
    groups: [
      {
        id: 'o',
        protocol: 'openai',
        models: ['openai-model'],
        upstreams: [
          {
            baseUrl: upstreamBaseUrl,
            apiKey: secrets.openai,
            headers: { 'x-signing-token': secrets.header, 'openai-beta': 'assistants=v2' },
          },
        ],
      },
      {
        id: 'a',
        protocol: 'anthropic',
        models: ['anthropic-model'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: secrets.anthropic }],
      },
      {
        id: 'g',
        protocol: 'gemini',
        models: ['gemini-model'],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: secrets.gemini }],
      },
    ],
    keys: [{ key: keys.main }],
  })
}

function answer(family: Family, next: UpstreamBehaviour) {
  if (family === 'openai') openaiUpstream.answer(next)
  else behaviour[family] = next
}

/** One call in the group's own protocol (passthrough) or another's (translated), read whole. */
async function call(
  gateway: (request: Request) => Promise<Response>,
  client: Family,
  group: Family,
  stream: boolean,
): Promise<{ status: number; text: string }> {
  const model = `${group}-model`
  const messages = [{ role: 'user', content: 'Hi' }]
  const request =
    client === 'openai'
      ? new Request(`${gatewayUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.main}` },
          body: JSON.stringify({ model, messages, stream }),
        })
      : client === 'anthropic'
        ? new Request(`${gatewayUrl}/v1/messages`, {
            method: 'POST',
            headers: { 'x-api-key': keys.main, 'anthropic-version': '2023-06-01' },
            body: JSON.stringify({ model, messages, max_tokens: 20, stream }),
          })
        : new Request(
            `${gatewayUrl}/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
            {
              method: 'POST',
              headers: { 'x-goog-api-key': keys.main },
              body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
            },
          )
  const response = await gateway(request)
  // Read chunk by chunk: a Gemini client's failed stream ends abnormally after the error object.
  const decoder = new TextDecoder()
  let text = ''
  const reader = response.body!.getReader()
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true })
    }
  } catch {
    // The abnormal end itself; the text before it is what the client saw.
  }
  return { status: response.status, text }
}

/** Every place a secret must not reach: what the client got, each log line, each event. */
function leaks(texts: readonly string[]): string[] {
  const found: string[] = []
  for (const [name, secret] of Object.entries(secrets)) {
    for (const text of texts) {
      for (let start = 0; start + 12 <= secret.length; start += 1) {
        if (text.includes(secret.slice(start, start + 12))) {
          found.push(`${name} in ${text.slice(0, 200)}`)
          break
        }
      }
    }
  }
  return found
}

/** Console output while `run` runs, plus the CLI's log line for each event. */
async function observed(
  events: RequestEvent[],
  run: () => Promise<string[]>,
): Promise<{ texts: string[]; logged: string[] }> {
  const logged: string[] = []
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logged.push(
        args
          .map((arg) =>
            arg instanceof Error
              ? `${arg.message} ${String(arg.cause)}`
              : typeof arg === 'string'
                ? arg
                : JSON.stringify(arg),
          )
          .join(' '),
      )
    })
  }
  const texts = await run()
  logged.push(...events.map(formatRequestLog))
  return { texts: [...texts, ...logged, ...events.map((event) => JSON.stringify(event))], logged }
}

/** How each upstream family quotes its key in an error, whole, masked and cut short. */
function quotingError(family: Family, status: number): UpstreamBehaviour {
  const key =
    family === 'openai'
      ? secrets.openai
      : family === 'anthropic'
        ? secrets.anthropic
        : secrets.gemini
  const message = `Incorrect API key provided: ${key}. Masked: ${key.slice(0, 7)}***${key.slice(-4)}. Also ${key.slice(0, 16)}… and header ${secrets.header}.`
  const body =
    family === 'openai'
      ? { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }
      : family === 'anthropic'
        ? { type: 'error', error: { type: 'invalid_request_error', message } }
        : { error: { code: status, message, status: 'INVALID_ARGUMENT' } }
  return { kind: 'error', status, body }
}

/** A stream whose upstream fails mid-way with an error quoting its key, in its own wire form. */
function quotingStream(family: Family): UpstreamBehaviour {
  const key =
    family === 'openai'
      ? secrets.openai
      : family === 'anthropic'
        ? secrets.anthropic
        : secrets.gemini
  const message = `Key ${key} was revoked mid-stream (${key.slice(0, 6)}…${key.slice(-3)})`
  if (family === 'openai') {
    return {
      kind: 'sse',
      frames: [
        ...chatStreamFrames(['Par', 'is']).slice(0, 3),
        `data: ${JSON.stringify({ error: { message, type: 'server_error', code: null } })}\n\n`,
      ],
    }
  }
  if (family === 'anthropic') {
    return {
      kind: 'sse',
      frames: [
        ...anthropicTextFrames(['Par', 'is']).slice(0, 4),
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`,
      ],
    }
  }
  return {
    kind: 'sse',
    frames: [
      ...geminiTextFrames(['Par', 'is'], { failAfter: true }).slice(0, 2),
      JSON.stringify({ error: { code: 500, message, status: 'INTERNAL' } }),
    ],
  }
}

const families: Family[] = ['openai', 'anthropic', 'gemini']
const cells = families.flatMap((client) => families.map((group) => [client, group] as const))

describe.each(cells)('%s client, %s group: upstream secrets', (client, group) => {
  it('never reach the client, the logs or the events when an upstream error quotes them', async () => {
    const { gateway, events } = setup()
    const { texts } = await observed(events, async () => {
      const results: string[] = []
      for (const status of [400, 404, 500]) {
        answer(group, quotingError(group, status))
        const result = await call(gateway, client, group, false)
        expect(result.status).toBeGreaterThanOrEqual(400)
        expect(result.text).toContain('[redacted]')
        results.push(result.text)
        answer(group, quotingError(group, status))
        results.push((await call(gateway, client, group, true)).text)
      }
      return results
    })
    expect(leaks(texts)).toEqual([])
  })

  it('never reach the client, the logs or the events when a mid-stream error quotes them', async () => {
    const { gateway, events } = setup()
    const { texts } = await observed(events, async () => {
      answer(group, quotingStream(group))
      const result = await call(gateway, client, group, true)
      expect(result.status).toBe(200)
      expect(result.text).toContain('[redacted]')
      return [result.text]
    })
    expect(events.at(-1)).toMatchObject({ outcome: 'error', error: { code: expect.any(String) } })
    expect(events.at(-1)!.error!.message).toContain('[redacted]')
    expect(leaks(texts)).toEqual([])
  })
})

describe('upstream redirects', () => {
  it.each(families)(
    'are never followed: a %s upstream answering a cross-origin 307 gets a 502, and the key goes nowhere',
    async (family) => {
      const { gateway, meter } = setup()
      answer(family, {
        kind: 'raw',
        status: 307,
        body: '',
        headers: { location: 'https://evil.test/collect' },
      })
      const result = await call(gateway, family, family, false)
      expect(result.status).toBe(family === 'gemini' ? 503 : 502)
      expect(result.text).toContain('redirect (HTTP 307)')
      expect(result.text).not.toContain('evil.test')
      expect(evilCalls).toHaveLength(0)
      expect(meter.records().at(-1)).toMatchObject({ outcome: 'error', status: 502 })
    },
  )
})
