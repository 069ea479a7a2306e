import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import { anthropicApiKey, anthropicBaseUrl, anthropicHandlers } from '../helpers/anthropic-upstream'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import {
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
  geminiTextFrames,
} from '../helpers/gemini-upstream'
import {
  responsesApiKey,
  responsesBaseUrl,
  responsesHandlers,
  responsesStreamFrames,
} from '../helpers/responses-upstream'
import { expectResponsesStreamOrder } from '../helpers/responses-stream'
import {
  chatStreamFrames,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'
import type { UpstreamKind } from '../helpers/upstream-usage'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

/**
 * The error codes Responses clients act on (RESP-ERR-01…03), end to end through the openai SDK and
 * as Codex reads a stream, against all four upstream kinds answering with their vendors' own
 * errors: `context_length_exceeded` (Codex compacts), `rate_limit_exceeded` with "try again in Ns"
 * (Codex's retry delay), `server_is_overloaded` on 503 (Codex retries), `insufficient_quota` for a
 * spent key — before the stream, and inside it as `error` then `response.failed`.
 */
const openai = createMockUpstream()
const calls: Record<'anthropic' | 'gemini' | 'responses', UpstreamCallRecord[]> = {
  anthropic: [],
  gemini: [],
  responses: [],
}
const behaviour: Record<UpstreamKind, UpstreamBehaviour> = {
  openai: { kind: 'model' },
  anthropic: { kind: 'model' },
  gemini: { kind: 'model' },
  responses: { kind: 'model' },
}
openai.server.use(
  ...anthropicHandlers({ calls: calls.anthropic, behaviour: () => behaviour.anthropic }),
  ...geminiHandlers({ calls: calls.gemini, behaviour: () => behaviour.gemini }),
  ...responsesHandlers({ calls: calls.responses, behaviour: () => behaviour.responses }),
)
let handler: GatewayHandler
const spentKey = 'sk-test-spent-0123456789abcdefABCDEF'
beforeAll(() => {
  openai.server.listen({ onUnhandledRequest: 'error' })
  const group = (kind: UpstreamKind, upstream: { baseUrl: string; apiKey: string }) => ({
    id: kind,
    protocol: (kind === 'responses' ? 'openai' : kind) as 'openai' | 'anthropic' | 'gemini',
    models: [`model-${kind}`],
    upstreams: [{ ...upstream, ...(kind === 'responses' ? { responses: true } : {}) }],
  })
  handler = buildGateway({
    groups: [
      group('openai', { baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }),
      group('responses', { baseUrl: responsesBaseUrl, apiKey: responsesApiKey }),
      group('anthropic', { baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }),
      group('gemini', { baseUrl: geminiBaseUrl, apiKey: geminiApiKey }),
    ],
    keys: [{ key: keys.main }, { key: spentKey, quota: { tokens: 1 } }],
  }).gateway
})
afterAll(() => openai.server.close())

const kinds: UpstreamKind[] = ['openai', 'responses', 'anthropic', 'gemini']
const answer = (kind: UpstreamKind, next: UpstreamBehaviour) => {
  behaviour[kind] = next
  if (kind === 'openai') openai.answer(next)
}
const sdk = (key: string = keys.main) =>
  new OpenAI({
    apiKey: key,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(handler),
    maxRetries: 0,
  })

/** The APIError the SDK throws for a request, JSON and stream alike (errors come before SSE). */
async function refusal(kind: UpstreamKind, key?: string) {
  const errors: unknown[] = []
  for (const stream of [false, true]) {
    try {
      if (stream)
        for await (const _ of await sdk(key).responses.create({
          model: `model-${kind}`,
          input: 'Hi',
          stream: true,
        }));
      else await sdk(key).responses.create({ model: `model-${kind}`, input: 'Hi' })
    } catch (error) {
      errors.push(error)
    }
  }
  expect(errors).toHaveLength(2)
  const [json, stream] = errors as Array<InstanceType<typeof OpenAI.APIError>>
  expect({ status: stream!.status, code: stream!.code }).toEqual({
    status: json!.status,
    code: json!.code,
  })
  expect(json).toBeInstanceOf(OpenAI.APIError)
  return json!
}

/** Each vendor's own answer to a prompt longer than the model's context. */
const overflow: Record<UpstreamKind, UpstreamBehaviour> = {
  openai: {
    kind: 'error',
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  },
  responses: {
    kind: 'error',
    status: 400,
    body: {
      error: {
        message:
          'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    },
  },
  anthropic: {
    kind: 'error',
    status: 400,
    body: {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'prompt is too long: 210043 tokens > 200000 maximum',
      },
    },
  },
  gemini: {
    kind: 'error',
    status: 400,
    body: {
      error: {
        code: 400,
        message:
          'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
        status: 'INVALID_ARGUMENT',
      },
    },
  },
}

/** Each vendor's rate limit, saying how long to wait in its own way. */
const limited: Record<UpstreamKind, UpstreamBehaviour> = {
  openai: {
    kind: 'error',
    status: 429,
    headers: { 'retry-after': '2' },
    body: {
      error: {
        message:
          'Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM): Limit 30000, Used 29876, Requested 1200. Please try again in 2.152s.',
        type: 'tokens',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
  },
  responses: {
    kind: 'error',
    status: 429,
    body: {
      error: {
        message: 'Rate limit reached for requests. Please try again in 11.054s.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
  },
  anthropic: {
    kind: 'error',
    status: 429,
    headers: { 'retry-after': '13' },
    body: {
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'This request would exceed the rate limit for your organization.',
      },
    },
  },
  gemini: {
    kind: 'error',
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37s' }],
      },
    },
  },
}

/** Each vendor's overloaded answer. */
const overloaded: Record<UpstreamKind, UpstreamBehaviour> = {
  openai: {
    kind: 'error',
    status: 503,
    body: {
      error: {
        message: 'The engine is currently overloaded, please try again later.',
        type: 'server_error',
        param: null,
        code: null,
      },
    },
  },
  responses: {
    kind: 'error',
    status: 503,
    body: {
      error: {
        message: 'The server is overloaded. Please try again later.',
        type: 'server_error',
        param: null,
        code: 'server_is_overloaded',
      },
    },
  },
  anthropic: {
    kind: 'error',
    status: 529,
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  },
  gemini: {
    kind: 'error',
    status: 503,
    body: {
      error: {
        code: 503,
        message: 'The model is overloaded. Please try again later.',
        status: 'UNAVAILABLE',
      },
    },
  },
}

describe('an OpenAI-compatible server’s error without a code (vLLM)', () => {
  it('RESP-ERR-02: a context overflow is still context_length_exceeded', async () => {
    answer('openai', {
      kind: 'error',
      status: 400,
      body: {
        object: 'error',
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    })
    const error = await refusal('openai')
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded' })
    expect(error.message).toContain('maximum context length is 32768 tokens')
  })
})

describe.each(kinds)('Responses errors from the %s upstream', (kind) => {
  it('RESP-ERR-02: a context overflow is 400 context_length_exceeded', async () => {
    answer(kind, overflow[kind])
    expect(await refusal(kind)).toMatchObject({ status: 400, code: 'context_length_exceeded' })
  })

  it('RESP-ERR-01: a rate limit is 429 rate_limit_exceeded saying "try again in Ns"', async () => {
    answer(kind, limited[kind])
    const error = await refusal(kind)
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
    expect(error.message).toMatch(/try again in \d+(\.\d+)?s\b/)
  })

  it('RESP-ERR-01: an overloaded upstream is 503 server_is_overloaded', async () => {
    answer(kind, overloaded[kind])
    expect(await refusal(kind)).toMatchObject({ status: 503, code: 'server_is_overloaded' })
  })

  it('a spent gateway quota is 429 insufficient_quota, before any upstream call', async () => {
    answer(kind, { kind: 'model' })
    // The first call (of the first kind) spends the one-token quota; every later one is refused.
    await sdk(spentKey)
      .responses.create({ model: `model-${kind}`, input: 'Hi' })
      .catch(() => undefined)
    const before = kind === 'openai' ? openai.calls.length : calls[kind].length
    expect(await refusal(kind, spentKey)).toMatchObject({
      status: 429,
      code: 'insufficient_quota',
    })
    expect(kind === 'openai' ? openai.calls.length : calls[kind].length).toBe(before)
  })
})

/** Each vendor's stream that fails after some text, with the code the client should get. */
const failingStreams: Record<UpstreamKind, { frames: string[]; code: string; wait?: RegExp }> = {
  openai: {
    frames: [
      ...chatStreamFrames(['Par']).slice(0, 2),
      `data: ${JSON.stringify({ error: { message: 'Rate limit reached. Please try again in 7s.', type: 'requests', param: null, code: 'rate_limit_exceeded' } })}\n\n`,
    ],
    code: 'rate_limit_exceeded',
    wait: /try again in 7s/,
  },
  responses: {
    frames: [
      ...responsesStreamFrames(
        [{ type: 'message', pieces: ['Par'] }],
        { input: 1, output: 1 },
        {
          cut: true,
        },
      ),
      `event: error\ndata: ${JSON.stringify({ type: 'error', sequence_number: 5, error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota.', param: null } })}\n\n`,
      `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', sequence_number: 6, response: { id: 'resp_up', object: 'response', status: 'failed', output: [], error: { code: 'insufficient_quota', message: 'You exceeded your current quota.' }, usage: null } })}\n\n`,
    ],
    code: 'insufficient_quota',
  },
  anthropic: {
    frames: [
      ...anthropicFramesBeforeError(),
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
    ],
    code: 'server_is_overloaded',
  },
  gemini: {
    frames: [
      ...geminiTextFrames(['Par'], { failAfter: true }).slice(0, 1),
      JSON.stringify({
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '9s' }],
        },
      }),
    ],
    code: 'rate_limit_exceeded',
    wait: /try again in 9s/,
  },
}

function anthropicFramesBeforeError(): string[] {
  const frame = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  return [
    frame('message_start', {
      message: {
        id: 'msg_01x',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 1 },
      },
    }),
    frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Par' } }),
  ]
}

describe.each(kinds)('a mid-stream failure from the %s upstream (RESP-ERR-03)', (kind) => {
  it('is an error event with the code, then response.failed with it, as Codex reads it', async () => {
    const { frames, code, wait } = failingStreams[kind]
    answer(kind, { kind: 'sse', frames })
    const response = await handler(
      new Request(`${gatewayUrl}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: `model-${kind}`, input: 'Hi', stream: true, store: false }),
      }),
    )
    expect(response.status).toBe(200)
    const events = expectResponsesStreamOrder(await response.text())
    const text = events
      .filter((event) => event.data['type'] === 'response.output_text.delta')
      .map((event) => event.data['delta'])
      .join('')
    expect(text).toBe('Par')
    const [error, failed] = events.slice(-2).map((event) => event.data)
    expect(error!['type']).toBe('error')
    const errorCode = error!['error']?.['code'] ?? error!['code']
    expect(errorCode).toBe(code)
    expect(failed).toMatchObject({ type: 'response.failed', response: { error: { code } } })
    if (wait !== undefined) expect(failed!['response']['error']['message']).toMatch(wait)
  })

  it('makes the openai SDK throw after the text it yielded', async () => {
    answer(kind, { kind: 'sse', frames: failingStreams[kind].frames })
    let text = ''
    let thrown: unknown
    try {
      for await (const event of await sdk().responses.create({
        model: `model-${kind}`,
        input: 'Hi',
        stream: true,
      }))
        if (event.type === 'response.output_text.delta') text += event.delta
    } catch (error) {
      thrown = error
    }
    expect(text).toBe('Par')
    expect(thrown).toBeInstanceOf(OpenAI.APIError)
  })
})
