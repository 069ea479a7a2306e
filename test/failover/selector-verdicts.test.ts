import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  createStaticGroupRegistry,
  type AttemptVerdict,
  type UpstreamCall,
  type UpstreamProvider,
  type UpstreamSelector,
} from '../../src/index'
import { createWeightedSelector } from '../../src/extend'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'

/** A selector that records every selection and every verdict, around the weighted default. */
function recordingSelector(inner: UpstreamSelector) {
  const selected: string[] = []
  const verdicts: AttemptVerdict[] = []
  const selector: UpstreamSelector = {
    async select(group, context) {
      const choice = await inner.select(group, context)
      if ('unavailable' in choice) return choice
      selected.push(choice.upstream.id)
      let finished = false
      return {
        ...choice,
        finish(verdict) {
          if (finished) throw new Error('finish called twice')
          finished = true
          verdicts.push(verdict)
          choice.finish(verdict)
        },
      }
    },
    health: () => inner.health(),
  }
  return { selector, selected, verdicts }
}

type Answer = (call: UpstreamCall) => Response | Promise<Response>

function provider(id: string, protocol: 'openai' | 'anthropic', answer: Answer): UpstreamProvider {
  return { id, protocol, send: async (call) => answer(call) }
}

const chatBody = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_763_000_000,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hi', refusal: null },
      finish_reason: 'stop',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
}

const chatFrames = [
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] })}\n\n`,
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null })}\n\n`,
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`,
  'data: [DONE]\n\n',
]

function openAIError(status: number, message: string, type: string, code: string | null) {
  return Response.json({ error: { message, type, param: null, code } }, { status })
}

function build(answer: Answer, options: { protocol?: 'openai' | 'anthropic' } = {}) {
  const protocol = options.protocol ?? 'openai'
  const groups = [
    {
      id: 'g',
      protocol,
      models: [{ name: 'm', upstreamModel: 'm' }],
      upstreams: [provider('up-1', protocol, answer)],
    },
  ]
  const recorder = recordingSelector(
    createWeightedSelector({ registry: createStaticGroupRegistry(groups), random: Math.random }),
  )
  const gateway = createGateway({
    groups,
    keys: [
      { key: keys.main, name: 'main' },
      { key: keys.limited, name: 'limited', limits: { tokensPerDay: 0 } },
    ],
    usageMeter: createMemoryUsageMeter(),
    upstreamSelector: recorder.selector,
  })
  const openai = (apiKey: string = keys.main) =>
    new OpenAI({ apiKey, baseURL: `${gatewayUrl}/v1`, fetch: fetchThrough(gateway), maxRetries: 0 })
  const anthropic = new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetchThrough(gateway),
    maxRetries: 0,
  })
  return { gateway, openai, anthropic, ...recorder }
}

const hello = [{ role: 'user' as const, content: 'Hello' }]

describe('the selector hears one verdict per selection', () => {
  it('ok for a JSON answer and for a stream whose first frame arrived', async () => {
    const json = build(() => Response.json(chatBody))
    await json.openai().chat.completions.create({ model: 'm', messages: hello })
    // A success carries what the latency measure takes: its time, kind and output tokens.
    expect(json.verdicts).toEqual([
      { kind: 'ok', elapsedMs: expect.any(Number), stream: false, outputTokens: 1 },
    ])

    const streamed = build(
      () => new Response(chatFrames.join(''), { headers: { 'content-type': 'text/event-stream' } }),
    )
    const stream = await streamed
      .openai()
      .chat.completions.create({ model: 'm', messages: hello, stream: true })
    for await (const _ of stream) void _
    expect(streamed.verdicts).toEqual([
      { kind: 'ok', elapsedMs: expect.any(Number), stream: true, outputTokens: undefined },
    ])
  })

  it.each([
    [
      '500',
      () => openAIError(500, 'boom', 'server_error', null),
      { kind: 'failed', status: 500, answered: true },
      3,
    ],
    [
      '429 with retry-after',
      () => {
        const response = openAIError(429, 'slow down', 'rate_limit_error', 'rate_limit_exceeded')
        response.headers.set('retry-after', '7')
        return response
      },
      { kind: 'failed', status: 429, retryAfterMs: 7000, answered: true },
      // Longer than `maxRetryAfterMs`: not retried.
      1,
    ],
    [
      '429 insufficient_quota',
      () => openAIError(429, 'You exceeded your quota', 'insufficient_quota', 'insufficient_quota'),
      { kind: 'rejected-key', status: 429, reason: 'out of quota (HTTP 429)' },
      1,
    ],
    [
      '401',
      () => openAIError(401, 'Incorrect API key', 'invalid_request_error', 'invalid_api_key'),
      { kind: 'rejected-key', status: 401, reason: 'refused (HTTP 401)' },
      1,
    ],
    [
      '400 (the client’s own error)',
      () => openAIError(400, 'bad', 'invalid_request_error', null),
      { kind: 'neutral' },
      1,
    ],
    [
      'a connect error',
      () => {
        throw new TypeError('fetch failed')
      },
      // No answer at all: the whole upstream, not one model, is at fault.
      { kind: 'failed', answered: false },
      3,
    ],
    [
      'a 200 that is not JSON',
      () => new Response('<html>', { headers: { 'content-type': 'text/html' } }),
      { kind: 'failed', answered: true },
      3,
    ],
  ] as const)('%s', async (_, answer, verdict, attempts) => {
    // A lone upstream's retryable failure is tried again, up to `retry.attempts` (3): one
    // selection, one verdict each time.
    const { openai, verdicts, selected } = build(answer)
    await expect(
      openai().chat.completions.create({ model: 'm', messages: hello }),
    ).rejects.toBeInstanceOf(OpenAI.APIError)
    expect(selected).toEqual(Array<string>(attempts).fill('up-1'))
    expect(verdicts).toEqual(Array<unknown>(attempts).fill(verdict))
  })

  it('failed with 529 for an Anthropic stream whose first event is overloaded_error', async () => {
    const frame = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`
    const { anthropic, verdicts } = build(
      () => new Response(frame, { headers: { 'content-type': 'text/event-stream' } }),
      { protocol: 'anthropic' },
    )
    const error = await anthropic.messages
      .create({ model: 'm', max_tokens: 10, messages: hello, stream: true })
      .then(async (stream) => {
        for await (const _ of stream) void _
      })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529)
    expect(verdicts).toEqual(
      Array<unknown>(3).fill({ kind: 'failed', status: 529, answered: true }),
    )
  })

  it('neutral for a client that left, and for a request the meter refused', async () => {
    const controller = new AbortController()
    const left = build(
      (call) =>
        new Promise<Response>((_, reject) =>
          call.signal.addEventListener('abort', () => reject(call.signal.reason)),
        ),
    )
    const pending = left
      .openai()
      .chat.completions.create({ model: 'm', messages: hello }, { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 50))
    controller.abort()
    await expect(pending).rejects.toThrow()
    await vitestWait(() => left.verdicts.length === 1)
    expect(left.verdicts).toEqual([{ kind: 'neutral' }])

    const refused = build(() => Response.json(chatBody))
    await expect(
      refused.openai(keys.limited).chat.completions.create({ model: 'm', messages: hello }),
    ).rejects.toMatchObject({ status: 429 })
    expect(refused.verdicts.length).toBe(refused.selected.length)
    expect(refused.verdicts.every((verdict) => verdict.kind === 'neutral')).toBe(true)
  })

  it('ok for a token count', async () => {
    const { anthropic, verdicts } = build(() => Response.json({ input_tokens: 3 }), {
      protocol: 'anthropic',
    })
    const count = await anthropic.messages.countTokens({ model: 'm', messages: hello })
    expect(count.input_tokens).toBe(3)
    expect(verdicts).toEqual([{ kind: 'ok' }])
  })
})

describe('nothing available', () => {
  const unavailable: UpstreamSelector = {
    select: () => ({ unavailable: true, retryAfterMs: 4200, reason: 'circuits-open' }),
    health: () => [],
  }
  const gateway = createGateway({
    groups: [
      { id: 'o', protocol: 'openai', models: ['o-model'], upstreams: [{ provider: 'mock' }] },
      { id: 'a', protocol: 'anthropic', models: ['a-model'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [{ key: keys.main }],
    upstreamSelector: unavailable,
  })

  it('is 503 with retry-after in OpenAI shape', async () => {
    const client = new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const error = (await client.chat.completions
      .create({ model: 'o-model', messages: hello })
      .catch((thrown: unknown) => thrown)) as InstanceType<typeof OpenAI.APIError>
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(error.status).toBe(503)
    expect(error.headers?.get('retry-after')).toBe('5')
    expect(error.headers?.get('retry-after-ms')).toBe('4200')
  })

  it('is 529 overloaded_error on Anthropic routes', async () => {
    const client = new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const error = (await client.messages
      .create({ model: 'a-model', max_tokens: 5, messages: hello })
      .catch((thrown: unknown) => thrown)) as InstanceType<typeof Anthropic.APIError>
    expect(error.status).toBe(529)
    expect((error.error as { error: { type: string } }).error.type).toBe('overloaded_error')
    expect(error.headers?.get('retry-after')).toBe('5')
  })
})

async function vitestWait(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
}
