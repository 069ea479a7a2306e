import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  createGateway,
  type GatewayConfig,
  type GatewayHandler,
  type RequestEvent,
} from '../../src/index'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { gatewayHandler } from '../helpers/gemini-upstream'
import {
  baseUrlOf,
  healthUpstreams,
  vendorErrors,
  type HealthHost,
} from '../helpers/health-upstreams'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

/**
 * Upstream health through the official SDKs: circuits opened by vendors' 429/529 and skipped,
 * the immediate answer when every circuit is open (in each client protocol's shape), the one
 * probe of a half-open circuit, what never counts, session affinity, key pools and concurrency
 * limits. Upstreams are msw fakes answering with the vendors' own bodies and headers; the
 * gateway's clock is a fake one the tests move.
 */

const upstreams = healthUpstreams()
let current: GatewayHandler
const server = setupServer(
  ...upstreams.handlers,
  gatewayHandler(gatewayUrl, () => current),
)
const clock = { now: 1_763_900_000_000 }

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => {
  upstreams.reset()
  vi.restoreAllMocks()
})
afterAll(() => server.close())

type GroupConfig = NonNullable<GatewayConfig['groups']>[number]

const upstream = (host: HealthHost, extra: object = {}) => ({
  id: host,
  baseUrl: baseUrlOf(host),
  apiKey: `sk-${host}-upstream-key-0000000000000000`,
  ...extra,
})

function gatewayWith(groups: GroupConfig[], extra: Partial<GatewayConfig> = {}) {
  const events: RequestEvent[] = []
  current = createGateway({
    groups,
    keys: [{ key: keys.main }],
    now: () => clock.now,
    onEvent: (event) => events.push(event),
    ...extra,
  })
  return { gateway: current, events }
}

const openai = () =>
  new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(current),
    maxRetries: 0,
  })
const anthropic = () =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetchThrough(current),
    maxRetries: 0,
  })
const gemini = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })

const chat = (model = 'chat', extra: object = {}) =>
  openai().chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'What is the capital of France?' }],
    ...extra,
  })
const message = (model = 'claude', extra: object = {}) =>
  anthropic().messages.create({
    model,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'What is the capital of France?' }],
    ...extra,
  })

/** What a call threw (it must throw). */
async function thrown(call: Promise<unknown>): Promise<any> {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error('The call succeeded.')
}

const openAIGroup: GroupConfig = {
  id: 'o',
  protocol: 'openai',
  models: [{ name: 'chat', upstreamModel: 'gpt-4o-mini' }],
  upstreams: [upstream('oa-1')],
}
const anthropicGroup: GroupConfig = {
  id: 'a',
  protocol: 'anthropic',
  models: [{ name: 'claude', upstreamModel: 'claude-sonnet-4-5' }],
  upstreams: [upstream('an-1')],
}
const geminiGroup: GroupConfig = {
  id: 'g',
  protocol: 'gemini',
  models: [{ name: 'gemini', upstreamModel: 'gemini-2.5-flash' }],
  upstreams: [upstream('ge-1')],
}

describe('circuits opened by the upstream', () => {
  it('with whenAllResting "refuse", a 429 with retry-after rests the model for that long: in between, every client protocol gets an immediate 503/529 with retry-after and no upstream call', async () => {
    // The fail-fast opt-in; the default sends to the soonest instead (resting-upstreams.test.ts).
    const refuse = { whenAllResting: 'refuse' as const }
    const { gateway } = gatewayWith(
      [openAIGroup, anthropicGroup, geminiGroup].map((group) => ({
        ...group,
        circuitBreaker: refuse,
      })),
    )
    upstreams.script('oa-1', () => vendorErrors.openAIRateLimit(30))
    upstreams.script('an-1', () => vendorErrors.anthropicRateLimit(30))
    upstreams.script('ge-1', () => vendorErrors.geminiExhausted(30))
    const opened = clock.now
    expect(await thrown(chat())).toMatchObject({ status: 429 })
    expect(await thrown(message())).toMatchObject({ status: 429 })
    expect(
      await thrown(gemini().models.generateContent({ model: 'gemini', contents: 'Hi' })),
    ).toMatchObject({ status: 429 })
    expect(upstreams.calls).toHaveLength(3)
    // The upstreams answered: each rests for the model asked, not as a whole.
    expect(await gateway.health()).toEqual(
      [
        ['o', 'gpt-4o-mini'],
        ['a', 'claude-sonnet-4-5'],
        ['g', 'gemini-2.5-flash'],
      ].map(([groupId, model]) =>
        expect.objectContaining({
          groupId,
          circuit: 'closed',
          models: [
            {
              model,
              circuit: 'open',
              openUntil: opened + 30_000,
              reason: 'rate limited or overloaded (retry-after)',
            },
          ],
        }),
      ),
    )

    // Every upstream fixed, but the circuits hold for the time the upstreams asked.
    upstreams.script('oa-1', undefined)
    upstreams.script('an-1', undefined)
    upstreams.script('ge-1', undefined)
    clock.now += 20_000
    const openAIError = await thrown(chat())
    expect(openAIError).toBeInstanceOf(OpenAI.APIError)
    expect(openAIError.status).toBe(503)
    expect(openAIError.headers.get('retry-after')).toBe('10')
    const responsesError = await thrown(openai().responses.create({ model: 'chat', input: 'Hi' }))
    expect(responsesError).toMatchObject({ status: 503 })
    expect(responsesError.headers.get('retry-after')).toBe('10')
    const anthropicError = await thrown(message())
    expect(anthropicError).toBeInstanceOf(Anthropic.APIError)
    expect(anthropicError.status).toBe(529)
    expect(anthropicError.error).toMatchObject({ error: { type: 'overloaded_error' } })
    // The refusal names the model and what rests.
    expect(anthropicError.error.error.message).toContain('for model "claude"')
    expect(anthropicError.error.error.message).toContain(
      'upstream "an-1" of group "a" rests for model "claude-sonnet-4-5"',
    )
    expect(anthropicError.headers.get('retry-after')).toBe('10')
    const geminiError = await thrown(
      gemini().models.generateContent({ model: 'gemini', contents: 'Hi' }),
    )
    expect(geminiError).toMatchObject({ status: 503 })
    expect(JSON.parse(geminiError.message)).toMatchObject({ error: { status: 'UNAVAILABLE' } })
    expect(upstreams.calls).toHaveLength(3)

    // Once the time has passed, one probe each, and the circuits close.
    clock.now += 10_000
    expect((await chat()).choices[0]!.message.content).toBeTruthy()
    expect((await message()).content.length).toBeGreaterThan(0)
    expect(
      (await gemini().models.generateContent({ model: 'gemini', contents: 'Hi' })).text,
    ).toBeTruthy()
    expect((await gateway.health()).map((entry) => [entry.circuit, entry.models])).toEqual([
      ['closed', undefined],
      ['closed', undefined],
      ['closed', undefined],
    ])
  })

  it('an upstream whose circuit is open is skipped: the group’s other upstream serves, and the answer says which', async () => {
    const { events } = gatewayWith([
      { ...anthropicGroup, upstreams: [upstream('an-1'), upstream('an-2')] },
    ])
    upstreams.script('an-1', () => vendorErrors.anthropicOverloaded())
    // Until an-1 has answered once, either may be picked: ask until it has.
    for (let tries = 0; upstreams.callsTo('an-1').length === 0 && tries < 50; tries += 1) {
      await message().catch(() => undefined)
    }
    const before = upstreams.callsTo('an-1').length
    expect(before).toBe(1)
    for (let index = 0; index < 20; index += 1) await message()
    expect(upstreams.callsTo('an-1')).toHaveLength(before)
    expect(events.slice(-20).every((event) => event.provider === 'an-2')).toBe(true)
  })

  it('with whenAllResting "refuse", half-open lets exactly one probe through while twenty requests arrive at once', async () => {
    const { gateway } = gatewayWith([
      { ...openAIGroup, circuitBreaker: { whenAllResting: 'refuse' } },
    ])
    upstreams.script('oa-1', () => vendorErrors.openAIRateLimit(5))
    await thrown(chat())
    clock.now += 5_000
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    upstreams.script('oa-1', async () => {
      await released
      return undefined
    })
    const results = Array.from({ length: 20 }, () =>
      chat().then(
        () => 200,
        (error) => error.status,
      ),
    )
    await vi.waitFor(() => expect(upstreams.callsTo('oa-1')).toHaveLength(2))
    // Everyone but the probe is answered while the probe is still out.
    const answered = await Promise.race([
      Promise.all(results.slice(1)).then(() => 'all but one'),
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 2_000)),
    ])
    release()
    const statuses = await Promise.all(results)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 503)).toHaveLength(19)
    expect(answered === 'all but one' || statuses[0] === 200).toBe(true)
    expect(upstreams.callsTo('oa-1')).toHaveLength(2)
    expect((await gateway.health())[0]!.models).toBeUndefined()
  })
})

describe('what never counts against an upstream', () => {
  it('count_tokens 404s (the gateway’s own and an upstream’s) and clients that leave never open a circuit', async () => {
    const { gateway } = gatewayWith([
      openAIGroup,
      { ...anthropicGroup, upstreams: [upstream('an-1')] },
    ])
    // The gateway's own 404: OpenAI groups have no count_tokens.
    for (let index = 0; index < 10; index += 1) {
      const error = await thrown(
        anthropic().messages.countTokens({
          model: 'chat',
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      )
      expect(error).toMatchObject({ status: 404 })
    }
    // An Anthropic-compatible upstream without count_tokens answers 404 itself.
    upstreams.script('an-1', (call) =>
      call.path.endsWith('/count_tokens') ? vendorErrors.anthropicNotFound() : undefined,
    )
    for (let index = 0; index < 10; index += 1) {
      const error = await thrown(
        anthropic().messages.countTokens({
          model: 'claude',
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      )
      expect(error).toMatchObject({ status: 404 })
    }
    // Clients that leave while the upstream is still thinking.
    upstreams.script('oa-1', () => new Promise<Response>(() => undefined))
    for (let index = 0; index < 10; index += 1) {
      const controller = new AbortController()
      const pending = openai().chat.completions.create(
        { model: 'chat', messages: [{ role: 'user', content: 'Hi' }] },
        { signal: controller.signal },
      )
      await vi.waitFor(() => expect(upstreams.callsTo('oa-1')).toHaveLength(index + 1))
      controller.abort()
      // In process, the gateway sees the abort first and answers 499; over a socket the SDK
      // would throw its own abort error.
      const error = await thrown(pending)
      expect(error instanceof OpenAI.APIUserAbortError || error.status === 499).toBe(true)
    }
    upstreams.script('oa-1', undefined)
    upstreams.script('an-1', undefined)
    await vi.waitFor(async () =>
      expect((await gateway.health()).map((entry) => entry.inFlight)).toEqual([0, 0]),
    )
    expect((await gateway.health()).map((entry) => entry.circuit)).toEqual(['closed', 'closed'])
    expect((await chat()).choices[0]!.message.content).toBeTruthy()
    expect((await message()).content.length).toBeGreaterThan(0)
  })
})

describe('session affinity', () => {
  const pool = (extra: Partial<GroupConfig> = {}): GroupConfig => ({
    ...openAIGroup,
    upstreams: [upstream('oa-1'), upstream('oa-2'), upstream('oa-3')],
    sessionAffinity: true,
    ...extra,
  })

  it('keeps 100 requests of one session on one upstream while it is healthy, moves them together when it is not, and spreads sessions', async () => {
    const { events } = gatewayWith([pool()])
    const session = { prompt_cache_key: 'codex-thread-0042' }
    for (let index = 0; index < 100; index += 1) await chat('chat', session)
    const home = events[0]!.provider as HealthHost
    expect(new Set(events.map((event) => event.provider))).toEqual(new Set([home]))

    // Its upstream is overloaded for a minute: the session moves, all of it to one other upstream.
    upstreams.script(home, () => vendorErrors.openAIRateLimit(60))
    await chat('chat', session).catch(() => undefined)
    events.length = 0
    for (let index = 0; index < 100; index += 1) await chat('chat', session)
    const moved = new Set(events.map((event) => event.provider))
    expect(moved.size).toBe(1)
    expect(moved.has(home)).toBe(false)
    upstreams.script(home, undefined)

    // And back home once the circuit has closed.
    clock.now += 60_000
    events.length = 0
    for (let index = 0; index < 5; index += 1) await chat('chat', session)
    expect(events.map((event) => event.provider)).toEqual(Array(5).fill(home))

    // Sixty sessions spread over all three upstreams.
    events.length = 0
    for (let index = 0; index < 60; index += 1) {
      await chat('chat', { prompt_cache_key: `thread-${index}` })
    }
    const spread = new Map<string, number>()
    for (const event of events) spread.set(event.provider!, (spread.get(event.provider!) ?? 0) + 1)
    expect(spread.size).toBe(3)
    expect(Math.min(...spread.values())).toBeGreaterThanOrEqual(8)
  })

  it('reads each client protocol’s own hint: OpenAI user, Responses prompt_cache_key, Anthropic metadata.user_id, and a configured header', async () => {
    const { events } = gatewayWith([
      pool({ sessionAffinity: { header: 'x-session-id' } }),
      {
        ...anthropicGroup,
        upstreams: [upstream('an-1'), upstream('an-2')],
        sessionAffinity: true,
      },
    ])
    const sameUpstream = async (call: () => Promise<unknown>) => {
      events.length = 0
      for (let index = 0; index < 12; index += 1) await call()
      return new Set(events.map((event) => event.provider)).size
    }
    expect(await sameUpstream(() => chat('chat', { user: 'user-7' }))).toBe(1)
    expect(
      await sameUpstream(() =>
        openai().responses.create({ model: 'chat', input: 'Hi', prompt_cache_key: 'thread-9' }),
      ),
    ).toBe(1)
    expect(await sameUpstream(() => message('claude', { metadata: { user_id: 'user-3' } }))).toBe(1)
    expect(
      await sameUpstream(() =>
        openai().chat.completions.create(
          { model: 'chat', messages: [{ role: 'user', content: 'Hi' }] },
          { headers: { 'x-session-id': 'desk-12' } },
        ),
      ),
    ).toBe(1)
    // Without a hint, requests spread by weight.
    expect(await sameUpstream(() => chat('chat'))).toBeGreaterThan(1)
  })
})

describe('key pools', () => {
  const pooledKeys = [
    'sk-ant-api03-first-pooled-key-000000000001111',
    'sk-ant-api03-second-pooled-key-00000000002222',
  ]

  it('a 401 on key 1 takes it out of rotation (masked in health, the log and the event) and the request is served with key 2', async () => {
    const warnings: string[] = []
    vi.spyOn(console, 'warn').mockImplementation((line: string) => void warnings.push(line))
    const { gateway, events } = gatewayWith([
      {
        ...anthropicGroup,
        upstreams: [{ id: 'an-1', baseUrl: baseUrlOf('an-1'), apiKeys: pooledKeys }],
      },
    ])
    upstreams.script('an-1', (call) =>
      call.key === pooledKeys[0] ? vendorErrors.anthropicInvalidKey() : undefined,
    )
    const answer = await message()
    expect(answer.content.length).toBeGreaterThan(0)
    expect(upstreams.callsTo('an-1').map((call) => call.key)).toEqual(pooledKeys)
    // The request's event lists both attempts, each with its key masked and what it told health.
    expect(events[0]!.attempts).toEqual([
      expect.objectContaining({
        upstream: 'an-1',
        credential: 'sk-…1111',
        status: 401,
        verdict: 'rejected-key',
        outcome: 'failed',
      }),
      expect.objectContaining({
        upstream: 'an-1',
        credential: 'sk-…2222',
        verdict: 'ok',
        outcome: 'answered',
      }),
    ])
    expect((await gateway.health())[0]).toMatchObject({
      circuit: 'closed',
      keys: [{ masked: 'sk-…1111', disabled: '401 refused (HTTP 401)' }, { masked: 'sk-…2222' }],
    })
    expect(warnings).toEqual([
      '[model-gateway] upstream a/an-1: key sk-…1111 out of rotation for 3600 s: 401 refused (HTTP 401).',
    ])
    // Every later call goes with key 2 only; no full key reaches the events or the log.
    for (let index = 0; index < 5; index += 1) await message()
    expect(
      upstreams
        .callsTo('an-1')
        .slice(2)
        .map((call) => call.key),
    ).toEqual(Array(5).fill(pooledKeys[1]))
    const published = JSON.stringify([events, warnings, await gateway.health()])
    for (const key of pooledKeys) expect(published).not.toContain(key.slice(-12))
  })

  it('rotates round-robin over the pool', async () => {
    const keysOf = ['sk-rot-key-a-000000000000000000aaaa', 'sk-rot-key-b-000000000000000000bbbb']
    gatewayWith([
      {
        ...openAIGroup,
        upstreams: [{ id: 'oa-1', baseUrl: baseUrlOf('oa-1'), apiKeys: keysOf }],
      },
    ])
    for (let index = 0; index < 4; index += 1) await chat()
    expect(upstreams.callsTo('oa-1').map((call) => call.key)).toEqual([...keysOf, ...keysOf])
  })
})

describe('concurrency limits', () => {
  it('maxConcurrent holds under concurrent streams: the limits are never passed, the rest are told 503 at once, and a slot frees when its stream ends', async () => {
    const { gateway } = gatewayWith([
      {
        ...openAIGroup,
        upstreams: [upstream('oa-1', { maxConcurrent: 2 }), upstream('oa-2', { maxConcurrent: 3 })],
      },
    ])
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    // Each stream sends its first chunk, then holds until released.
    const held = (): Response => {
      const encoder = new TextEncoder()
      const chunk = (delta: object, extra: object = {}) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`
      return new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode(chunk({ role: 'assistant', content: 'Par' })))
            await released
            controller.enqueue(encoder.encode(chunk({ content: 'is' })))
            controller.enqueue(
              encoder.encode(
                `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } })}\n\ndata: [DONE]\n\n`,
              ),
            )
            controller.close()
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    }
    upstreams.script('oa-1', held)
    upstreams.script('oa-2', held)
    const read = async () => {
      const stream = await openai().chat.completions.create({
        model: 'chat',
        messages: [{ role: 'user', content: 'What is the capital of France?' }],
        stream: true,
      })
      let text = ''
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
      return text
    }
    const results = Array.from({ length: 12 }, () => read().catch((error) => error.status))
    // Five streams are open upstream, the other seven were refused without waiting for them.
    const refused = await Promise.all(
      results.map((result) =>
        Promise.race([result, new Promise((r) => setTimeout(() => r('open'), 3_000))]),
      ),
    )
    expect(refused.filter((value) => value === 503)).toHaveLength(7)
    expect(refused.filter((value) => value === 'open')).toHaveLength(5)
    expect((await gateway.health()).map((entry) => entry.inFlight)).toEqual([2, 3])
    release()
    const texts = await Promise.all(results)
    expect(texts.filter((text) => text === 'Paris')).toHaveLength(5)
    expect(upstreams.peak('oa-1')).toBe(2)
    expect(upstreams.peak('oa-2')).toBe(3)
    // The slots are free again once the streams have ended.
    await vi.waitFor(async () =>
      expect((await gateway.health()).map((entry) => entry.inFlight)).toEqual([0, 0]),
    )
    upstreams.script('oa-1', undefined)
    upstreams.script('oa-2', undefined)
    const again = await Promise.all(Array.from({ length: 5 }, () => chat()))
    expect(again).toHaveLength(5)
  })
})
