import { appendFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createStaticGroupRegistry,
  type Group,
  type GroupRegistry,
  type RequestEvent,
  type UpstreamProvider,
} from '../../src/index'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'
import {
  fakeOpenAI,
  percentiles,
  routingGateway,
  runConcurrently,
  timedSelector,
  type FakeAnswer,
} from './routing-fakes'

// A 429 opens a circuit, with a warning line: captured and checked, not printed.
captureGatewayWarnings()

const hello = [{ role: 'user' as const, content: 'Say hello.' }]
const figures: string[] = []
afterAll(() => {
  // The report's figures (share of traffic, selection overhead), kept beside the test output.
  const file = process.env.ROUTING_FIGURES
  if (file !== undefined) appendFileSync(file, `${figures.join('\n')}\n`)
})

/** A `fetch` that sends each upstream host's calls to its fake, as `answers` says now. */
function fakesByHost(answers: Record<string, FakeAnswer>): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const host = new URL(request.url).hostname.replace(/\.test$/, '')
    return fakeOpenAI(request, answers[host]!, init?.signal)
  }
}

/** A provider object whose fake answers after `answer.delayMs`. */
function fakeProvider(id: string, answer: FakeAnswer): UpstreamProvider {
  return {
    id,
    protocol: 'openai',
    send: (call) =>
      fakeOpenAI(
        new Request(`https://${id}.test/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer sk-${id}-0000`, 'content-type': 'application/json' },
          body: call.body,
        }),
        answer,
        call.signal,
      ),
  }
}

function answeredBy(events: readonly RequestEvent[]): string[] {
  return events.map((event) => event.provider ?? '-')
}

function shareOf(events: readonly RequestEvent[], upstream: string): number {
  return events.filter((event) => event.provider === upstream).length / events.length
}

function note(scenario: string, events: readonly RequestEvent[], timings: readonly number[]) {
  const counts = new Map<string, number>()
  for (const event of events)
    counts.set(event.provider ?? '-', (counts.get(event.provider ?? '-') ?? 0) + 1)
  const share = [...counts].map(([id, n]) => `${id} ${((100 * n) / events.length).toFixed(1)}%`)
  const { p50, p99 } = percentiles(timings)
  figures.push(
    `${scenario}: ${events.length} requests; ${share.join(', ')}; select() p50 ${(p50 * 1000).toFixed(1)} µs, p99 ${(p99 * 1000).toFixed(1)} µs`,
  )
}

describe('priority tiers', () => {
  it('a tier-0 upstream answering 429 sends the call to tier 1 in the same request; traffic returns when it recovers', async () => {
    const answers: Record<string, FakeAnswer> = { committed: {}, payg: {} }
    const groups = [
      {
        id: 'gpt',
        protocol: 'openai' as const,
        models: ['gpt-4o-mini'],
        upstreams: [
          // The pay-as-you-go upstream first: order is not what puts the committed one first.
          { id: 'payg', baseUrl: 'https://payg.test/v1', apiKey: 'sk-payg-0000', priority: 1 },
          { id: 'committed', baseUrl: 'https://committed.test/v1', apiKey: 'sk-c-0000' },
        ],
      },
    ]
    const { events, openai, gateway } = routingGateway({ groups, fetch: fakesByHost(answers) })
    for (let index = 0; index < 10; index += 1) {
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    }
    expect(answeredBy(events)).toEqual(Array(10).fill('committed'))
    expect(events[0]!.attempts).toEqual([
      expect.objectContaining({ upstream: 'committed', tier: 0, strategy: 'weighted' }),
    ])

    answers.committed = { status: 429, retryAfter: '1' }
    const answer = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    expect(answer.choices[0]!.message.content).toBe('Hello there.')
    const failover = events.at(-1)!
    expect(failover.attempts).toEqual([
      expect.objectContaining({ upstream: 'committed', status: 429, tier: 0, outcome: 'failed' }),
      expect.objectContaining({
        upstream: 'payg',
        tier: 1,
        strategy: 'weighted',
        outcome: 'answered',
      }),
    ])
    for (let index = 0; index < 5; index += 1) {
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    }
    expect(answeredBy(events.slice(-5))).toEqual(Array(5).fill('payg'))
    // While tier 0 rests, health shows each upstream's tier and share.
    const resting = await gateway.health()
    // A 429 rests the upstream for that model alone (its pair circuit), for the retry-after.
    expect(
      resting.map((entry) => [entry.upstreamId, entry.tier, entry.models?.[0]?.circuit]),
    ).toEqual([
      ['payg', 1, undefined],
      ['committed', 0, 'open'],
    ])
    expect(resting.find((entry) => entry.upstreamId === 'payg')!.share).toBeGreaterThan(0)

    answers.committed = {}
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const before = events.length
    for (let index = 0; index < 10; index += 1) {
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    }
    expect(answeredBy(events.slice(before))).toEqual(Array(10).fill('committed'))
  })
})

describe('latency balancing', () => {
  it('at least 90% of 500 calls go to the 50 ms upstream over the 400 ms one', async () => {
    const group: Group = {
      id: 'gpt',
      protocol: 'openai',
      balancing: 'latency',
      models: [{ name: 'gpt-4o-mini', upstreamModel: 'gpt-4o-mini' }],
      upstreams: [fakeProvider('slow', { delayMs: 400 }), fakeProvider('fast', { delayMs: 50 })],
    }
    const registry = createStaticGroupRegistry([group])
    const timed = timedSelector(registry)
    const { events, openai, gateway } = routingGateway({
      groupRegistry: registry,
      upstreamSelector: timed.selector,
    })
    const failed = await runConcurrently(500, 10, () =>
      openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(failed).toBe(0)
    expect(events).toHaveLength(500)
    expect(shareOf(events, 'fast')).toBeGreaterThanOrEqual(0.9)
    // Each attempt says why: the strategy and its score, once there are samples.
    expect(events.at(-1)!.attempts![0]).toEqual(
      expect.objectContaining({ tier: 0, strategy: 'latency', score: expect.any(Number) }),
    )
    const health = await gateway.health()
    const fast = health.find((entry) => entry.upstreamId === 'fast')!
    const slow = health.find((entry) => entry.upstreamId === 'slow')!
    expect(fast.share).toBeGreaterThanOrEqual(0.9)
    expect(fast.latency![0]!.jsonMsPerToken).toBeLessThan(slow.latency![0]!.jsonMsPerToken!)
    note('latency, 50 ms vs 400 ms', events, timed.timings)
  })

  it('a new upstream is probed one call at a time until it has samples, and no call fails', async () => {
    const models = [{ name: 'gpt-4o-mini', upstreamModel: 'gpt-4o-mini' }]
    const fast = fakeProvider('fast', { delayMs: 50 })
    const slow = fakeProvider('slow', { delayMs: 400 })
    const fresh = fakeProvider('new', { delayMs: 60 })
    const before: Group = {
      id: 'gpt',
      protocol: 'openai',
      balancing: 'latency',
      models,
      upstreams: [fast, slow],
    }
    const after: Group = { ...before, upstreams: [fast, slow, fresh] }
    let current = before
    const registry: GroupRegistry = {
      list: () => [current],
      get: (id) => (id === current.id ? current : undefined),
      servingModel: (model) => (model === 'gpt-4o-mini' ? [current] : []),
    }
    const timed = timedSelector(registry)
    const { events, openai } = routingGateway({
      groupRegistry: registry,
      upstreamSelector: timed.selector,
    })
    const call = () => openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    expect(await runConcurrently(100, 10, call)).toBe(0)
    expect(answeredBy(events)).not.toContain('new')
    current = after
    expect(await runConcurrently(200, 10, call)).toBe(0)
    const later = events.slice(100)
    // Probed: it took calls, and once measured (60 ms, near the fast one) it keeps a share.
    expect(shareOf(later, 'new')).toBeGreaterThan(0)
    const probes = later.filter((event) => event.provider === 'new')
    expect(probes.every((event) => event.outcome === 'ok')).toBe(true)
    note('latency, a new upstream joins', later, timed.timings.slice(100))
  })
})

describe('cost balancing', () => {
  it('every call goes to the cheaper upstream until it rests', async () => {
    const answers: Record<string, FakeAnswer> = { list: {}, contract: {} }
    const { events, openai } = routingGateway({
      groups: [
        {
          id: 'gpt',
          protocol: 'openai',
          balancing: 'cost',
          models: ['gpt-4o-mini'],
          upstreams: [
            { id: 'list', baseUrl: 'https://list.test/v1', apiKey: 'sk-list-0000', weight: 5 },
            {
              id: 'contract',
              baseUrl: 'https://contract.test/v1',
              apiKey: 'sk-ct-0000',
              priceMultiplier: 0.7,
            },
          ],
        },
      ],
      fetch: fakesByHost(answers),
    })
    const call = () => openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    expect(await runConcurrently(40, 4, call)).toBe(0)
    expect(answeredBy(events)).toEqual(Array(40).fill('contract'))
    const attempt = events[0]!.attempts![0]!
    expect(attempt).toEqual(
      expect.objectContaining({ tier: 0, strategy: 'cost', score: expect.any(Number) }),
    )
    // The upstream's own multiplier counts in the list price of what it answers.
    const contractCost = events[0]!.cost!.listNanoUsd
    answers.contract = { status: 429, retryAfter: '30' }
    await call()
    expect(events.at(-1)!.attempts!.map((a) => [a.upstream, a.outcome])).toEqual([
      ['contract', 'failed'],
      ['list', 'answered'],
    ])
    expect(await runConcurrently(10, 2, call)).toBe(0)
    expect(answeredBy(events.slice(-10))).toEqual(Array(10).fill('list'))
    const listCost = events.at(-1)!.cost!.listNanoUsd
    expect(contractCost / listCost).toBeCloseTo(0.7, 2)
    note('cost, 0.7 vs 1 × list', events.slice(0, 40), [])
  })
})
