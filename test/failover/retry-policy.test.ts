import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  type GatewayConfig,
  type GatewayHandler,
  type RequestEvent,
  type UsageRecord,
} from '../../src/index'
import { formatRequestLog } from '../../src/node/cli/request-log'
import { baseUrlOf, failingUpstreams, type Cue } from '../helpers/failing-upstreams'
import { keys } from '../helpers/gateway'
import { callThrough, until } from './client-calls'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

type Retry = NonNullable<NonNullable<GatewayConfig['groups']>[number]['retry']>

/** An OpenAI group of the named upstreams, tried in order, failing as `script` says. */
function setup(
  hosts: string[],
  script: (host: string, call: number) => Cue,
  retry?: Retry,
  health: { circuitBreaker?: false | { whenAllResting: 'try-soonest' | 'refuse' } } = {},
) {
  const upstreams = failingUpstreams('openai', script)
  const records: UsageRecord[] = []
  const events: RequestEvent[] = []
  const gateway = createGateway({
    groups: [
      {
        id: 'g',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: hosts.map((host) => ({
          id: host,
          baseUrl: baseUrlOf('openai', host),
          apiKey: `sk-${host}-upstream-secret-000000`,
        })),
        ...(retry === undefined ? {} : { retry }),
        ...health,
      },
    ],
    keys: [{ key: keys.main }],
    usageMeter: createMemoryUsageMeter(),
    usageLedger: { record: (record) => void records.push(record) },
    onEvent: (event) => void events.push(event),
    fetch: upstreams.fetch,
    random: () => 0,
  })
  return { gateway, upstreams, records, events }
}

const attemptsOf = (record: UsageRecord | undefined) =>
  record?.attempts?.map(
    (attempt) => `${attempt.upstream}:${attempt.status ?? '-'}:${attempt.verdict}`,
  )

describe('the retry policy', () => {
  it('retries a 408 once on the same upstream, then fails over', async () => {
    const once = setup(['a', 'b'], (host, call) =>
      host === 'a' && call === 1 ? { kind: 'status', status: 408 } : { kind: 'ok' },
    )
    expect(await callThrough('chat', once.gateway, 'gpt-4o-mini', false)).toMatchObject({
      kind: 'answer',
    })
    expect([once.upstreams.callsTo('a'), once.upstreams.callsTo('b')]).toEqual([2, 0])
    expect(attemptsOf(once.records[0])).toEqual(['a:408:failed', 'a:200:ok'])

    const twice = setup(['a', 'b'], (host) =>
      host === 'a' ? { kind: 'status', status: 409 } : { kind: 'ok' },
    )
    expect(await callThrough('chat', twice.gateway, 'gpt-4o-mini', false)).toMatchObject({
      kind: 'answer',
    })
    expect(attemptsOf(twice.records[0])).toEqual(['a:409:failed', 'a:409:failed', 'b:200:ok'])
  })

  it('does not wait for a retry-after longer than its cap: it fails over instead', async () => {
    const { gateway, upstreams, records } = setup(
      ['a', 'b'],
      (host) =>
        host === 'a'
          ? { kind: 'status', status: 408, headers: { 'retry-after': '30' } }
          : { kind: 'ok' },
      { maxRetryAfterMs: 1000 },
    )
    const started = Date.now()
    expect(await callThrough('chat', gateway, 'gpt-4o-mini', false)).toMatchObject({
      kind: 'answer',
    })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect([upstreams.callsTo('a'), upstreams.callsTo('b')]).toEqual([1, 1])
    expect(attemptsOf(records[0])).toEqual(['a:408:failed', 'b:200:ok'])
  })

  it('answers the last failure, in the client’s shape, once every upstream failed', async () => {
    const { gateway, upstreams, records, events } = setup(['a', 'b', 'c'], (host) => ({
      kind: 'status',
      status: host === 'c' ? 502 : 503,
    }))
    const result = await callThrough('chat', gateway, 'gpt-4o-mini', false)
    expect(result).toMatchObject({ kind: 'error', status: 502 })
    expect(upstreams.calls.map((call) => call.host)).toEqual(['a', 'b', 'c'])
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ outcome: 'error', status: 502, usage: undefined })
    expect(attemptsOf(records[0])).toEqual(['a:503:failed', 'b:503:failed', 'c:502:failed'])
    expect(events[0]).toMatchObject({ status: 502, group: 'g', provider: 'c' })
    expect(formatRequestLog(events[0]!)).toContain(
      ' attempts=g/a:503:failed,g/b:503:failed,g/c:502:failed ',
    )
  })

  it('makes one attempt with `attempts: 1`, and none past the deadline', async () => {
    const off = setup(['a', 'b'], () => ({ kind: 'status', status: 500 }), { attempts: 1 })
    expect(await callThrough('chat', off.gateway, 'gpt-4o-mini', false)).toMatchObject({
      kind: 'error',
      status: 500,
    })
    expect(off.upstreams.calls).toHaveLength(1)

    const late = setup(['a', 'b'], () => ({ kind: 'status', status: 500 }), { deadlineMs: 0 })
    await callThrough('chat', late.gateway, 'gpt-4o-mini', false)
    expect(late.upstreams.calls).toHaveLength(1)
  })

  it('stops retrying when the client leaves during the backoff', async () => {
    const { gateway, upstreams, records } = setup(
      ['a', 'b'],
      (host) => (host === 'a' ? { kind: 'status', status: 503 } : { kind: 'ok' }),
      { backoffMs: 5000, maxBackoffMs: 5000 },
    )
    const controller = new AbortController()
    const pending = callThrough('chat', gateway, 'gpt-4o-mini', false, {
      signal: controller.signal,
    })
    await until(() => upstreams.calls.length === 1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const aborted = Date.now()
    controller.abort()
    expect(await pending).toMatchObject({ kind: 'error' })
    await until(() => records.length === 1)
    expect(Date.now() - aborted).toBeLessThan(2500)
    // The wait was cut short, and nothing was sent after it.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(upstreams.calls.map((call) => call.host)).toEqual(['a'])
    expect(records[0]).toMatchObject({ outcome: 'aborted', usage: undefined })
    expect(attemptsOf(records[0])).toEqual(['a:503:failed'])
  })
})

describe('a Codex-style client', () => {
  it('gets the second upstream’s answer to a 429 from the first, without waiting its retry-after', async () => {
    // Codex never retries a 429 itself: the gateway must. The Responses SDK, retries off.
    const upstreams = failingUpstreams('responses', (host) =>
      host === 'a'
        ? { kind: 'status', status: 429, headers: { 'retry-after': '20' } }
        : { kind: 'ok' },
    )
    const entry = (host: string) => ({
      id: host,
      baseUrl: baseUrlOf('responses', host),
      apiKey: `sk-${host}-upstream-secret-000000`,
      responses: true,
    })
    const gateway = createGateway({
      groups: [
        {
          id: 'g',
          protocol: 'openai',
          models: ['gpt-4o-mini'],
          upstreams: [entry('a'), entry('b')],
        },
      ],
      keys: [{ key: keys.main }],
      fetch: upstreams.fetch,
      random: () => 0,
    })
    for (const stream of [false, true]) {
      const started = Date.now()
      expect(await callThrough('responses', gateway, 'gpt-4o-mini', stream)).toMatchObject({
        kind: 'answer',
      })
      expect(Date.now() - started).toBeLessThan(10_000)
    }
    // The 429 opened a's circuit for its retry-after: the second request goes straight to b.
    expect(upstreams.calls.map((call) => call.host)).toEqual(['a', 'b', 'b'])
  })
})

/** `requests` chat calls, `concurrency` at a time, each answered 503 (every upstream fails). */
async function failingLoad(gateway: GatewayHandler, requests: number, concurrency: number) {
  let next = 0
  const worker = async () => {
    while (next < requests) {
      next += 1
      const result = await callThrough('chat', gateway, 'gpt-4o-mini', false)
      expect(result).toMatchObject({ kind: 'error', status: 503 })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

describe('the retry budget', () => {
  it('keeps a group whose every upstream fails from multiplying load', async () => {
    // The budget alone: with circuit breakers on, they would answer most of these calls at once.
    const { gateway, upstreams, records } = setup(
      ['a', 'b', 'c'],
      () => ({ kind: 'status', status: 503 }),
      undefined,
      { circuitBreaker: false },
    )
    const requests = 200
    const concurrency = 30
    await failingLoad(gateway, requests, concurrency)
    await until(() => records.length === requests)
    const attempts = upstreams.calls.length
    // Defaults: retries ≤ 20 % of the window's requests + 10, so attempts ≤ 1.2 × 200 + 10.
    console.info(
      `retry budget: ${requests} requests, ${concurrency} concurrent, 3 upstreams all failing: ${attempts} upstream attempts (${(attempts / requests).toFixed(3)} per request; 600 without a budget)`,
    )
    expect(attempts).toBeLessThanOrEqual(1.2 * requests + 10)
    // The budget is spent, not unused: retries did happen.
    expect(attempts).toBeGreaterThan(requests)
    expect(records).toHaveLength(requests)
    const listed = records.reduce((sum, record) => sum + (record.attempts?.length ?? 0), 0)
    expect(listed).toBe(attempts)
  })

  it('with `whenAllResting: "refuse"`, the circuits open and shed what the budget would still send', async () => {
    const { gateway, upstreams, records } = setup(
      ['a', 'b', 'c'],
      () => ({ kind: 'status', status: 503 }),
      undefined,
      { circuitBreaker: { whenAllResting: 'refuse' } },
    )
    const requests = 200
    await failingLoad(gateway, requests, 30)
    await until(() => records.length === requests)
    const attempts = upstreams.calls.length
    console.info(
      `retry budget and circuit breakers (refuse): ${requests} requests, 30 concurrent, 3 upstreams all failing: ${attempts} upstream attempts (${(attempts / requests).toFixed(3)} per request)`,
    )
    // Each circuit opens after 5 failures in a row (more while concurrent attempts were out):
    // far fewer attempts than requests, the rest answered at once with 503 and retry-after.
    expect(attempts).toBeLessThan(requests)
    expect(attempts).toBeGreaterThanOrEqual(15)
    const health = await gateway.health()
    // The upstreams answered (503): each rests for the model asked, not as a whole.
    expect(health.map((entry) => entry.circuit)).toEqual(['closed', 'closed', 'closed'])
    expect(health.map((entry) => entry.models?.map((pair) => [pair.model, pair.circuit]))).toEqual(
      Array(3).fill([['gpt-4o-mini', 'open']]),
    )
  })

  it('with the defaults, every request still reaches an upstream once all rest, and the budget bounds the retries', async () => {
    const { gateway, upstreams, records } = setup(['a', 'b', 'c'], () => ({
      kind: 'status',
      status: 503,
    }))
    const requests = 200
    await failingLoad(gateway, requests, 30)
    await until(() => records.length === requests)
    const attempts = upstreams.calls.length
    console.info(
      `retry budget and circuit breakers (try-soonest): ${requests} requests, 30 concurrent, 3 upstreams all failing: ${attempts} upstream attempts (${(attempts / requests).toFixed(3)} per request)`,
    )
    // Each client gets an upstream's own 503, never a refusal; retries stay within the budget.
    expect(attempts).toBeGreaterThanOrEqual(requests)
    expect(attempts).toBeLessThanOrEqual(1.2 * requests + 10)
    const resting = records.filter((record) => record.attempts?.some((a) => a.resting === true))
    expect(resting.length).toBeGreaterThan(0)
  })
})
