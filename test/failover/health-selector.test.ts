import { describe, expect, it } from 'vitest'
import { createMemoryCircuitStore } from '../../src/failover/circuit-store'
import { createHealthSelector } from '../../src/failover/health-selector'
import {
  isUnavailable,
  type Selection,
  type SelectContext,
  type Unavailable,
  type UpstreamSelector,
} from '../../src/failover/upstream-selector'
import type { Group } from '../../src/routing/group-registry'
import { createStaticGroupRegistry } from '../../src/routing/static-group-registry'
import type { UpstreamProvider } from '../../src/upstream/provider'

function upstream(id: string, extra: Partial<UpstreamProvider> = {}): UpstreamProvider {
  return {
    id,
    protocol: 'openai',
    send: () => Promise.reject(new Error('not called in these tests')),
    ...extra,
  }
}

function groupOf(upstreams: UpstreamProvider[], extra: Partial<Group> = {}): Group {
  return {
    id: 'g',
    protocol: 'openai',
    models: [{ name: 'm', upstreamModel: 'm' }],
    upstreams,
    ...extra,
  }
}

function setup(group: Group, options: { random?: () => number } = {}) {
  const clock = { now: 1_000_000 }
  const lines: string[] = []
  const selector = createHealthSelector({
    registry: createStaticGroupRegistry([group]),
    now: () => clock.now,
    random: options.random ?? (() => 0.5),
    logger: { warn: (line) => lines.push(line) },
  })
  return { selector, clock, lines }
}

const first: SelectContext = { tried: new Set(), sessionHint: undefined }

function pick(selector: UpstreamSelector, group: Group, context: SelectContext = first): Selection {
  const choice = selector.select(group, context)
  if (choice instanceof Promise || isUnavailable(choice)) throw new Error('expected a selection')
  return choice
}

function refuse(
  selector: UpstreamSelector,
  group: Group,
  context: SelectContext = first,
): Unavailable {
  const choice = selector.select(group, context)
  if (choice instanceof Promise || !isUnavailable(choice)) throw new Error('expected Unavailable')
  return choice
}

describe('health selector: circuits', () => {
  it('a 429 with retry-after opens the circuit for that long; nothing is picked until then', async () => {
    const group = groupOf([upstream('a')])
    const { selector, clock, lines } = setup(group)
    pick(selector, group).finish({ kind: 'failed', status: 429, retryAfterMs: 30_000 })
    expect(refuse(selector, group)).toEqual({
      unavailable: true,
      retryAfterMs: 30_000,
      reason: 'circuits-open',
      detail:
        'upstream "a" of group "g" rests (rate limited or overloaded (retry-after)), 30.0 s left',
    })
    clock.now += 29_999
    expect(refuse(selector, group).retryAfterMs).toBe(1)
    expect(lines).toEqual([
      '[model-gateway] upstream g/a: circuit open for 30.0 s (rate limited or overloaded (retry-after), last HTTP 429).',
    ])
    const health = await selector.health()
    expect(health).toEqual([
      {
        groupId: 'g',
        upstreamId: 'a',
        circuit: 'open',
        openUntil: 1_030_000,
        reason: 'rate limited or overloaded (retry-after)',
        inFlight: 0,
        tier: 0,
        share: 1,
        recentCalls: 1,
        maxConcurrent: undefined,
        keys: undefined,
      },
    ])
    clock.now += 1
    const probe = pick(selector, group)
    expect((await selector.health())[0]!.circuit).toBe('half-open')
    probe.finish({ kind: 'ok' })
    expect((await selector.health())[0]!.circuit).toBe('closed')
    pick(selector, group).finish({ kind: 'ok' })
  })

  it('half-open lets exactly one probe through, however many ask at once', () => {
    const group = groupOf([upstream('a')])
    const { selector, clock } = setup(group)
    pick(selector, group).finish({ kind: 'failed', status: 529 })
    clock.now += 300_000
    const choices = Array.from({ length: 50 }, () => selector.select(group, first))
    const probes = choices.filter((choice) => !isUnavailable(choice as Selection | Unavailable))
    expect(probes).toHaveLength(1)
    // A probe that fails reopens the circuit, for twice the cooldown.
    ;(probes[0] as Selection).finish({ kind: 'failed', status: 500 })
    const reopened = refuse(selector, group)
    expect(reopened.retryAfterMs).toBeGreaterThanOrEqual(16_000)
    expect(reopened.retryAfterMs).toBeLessThanOrEqual(24_000)
  })

  it('neutral verdicts never touch a circuit, nor does a probe that ended neutral', () => {
    const group = groupOf([upstream('a')])
    const { selector, clock } = setup(group)
    for (let index = 0; index < 100; index += 1) pick(selector, group).finish({ kind: 'neutral' })
    pick(selector, group).finish({ kind: 'failed', status: 429, retryAfterMs: 1_000 })
    clock.now += 1_000
    pick(selector, group).finish({ kind: 'neutral' })
    // The probe told nothing: another may go.
    pick(selector, group).finish({ kind: 'ok' })
    pick(selector, group).finish({ kind: 'ok' })
  })

  it('opens after five failures in a row, and skips the open upstream for the others', () => {
    const group = groupOf([upstream('a'), upstream('b')])
    const draws = [0.1, 0.1, 0.1, 0.1, 0.1]
    const { selector } = setup(group, { random: () => draws.shift() ?? 0.1 })
    for (let index = 0; index < 5; index += 1) {
      const choice = pick(selector, group)
      expect(choice.upstream.id).toBe('a')
      choice.finish({ kind: 'failed' })
    }
    for (let index = 0; index < 20; index += 1) {
      const choice = pick(selector, group)
      expect(choice.upstream.id).toBe('b')
      choice.finish({ kind: 'ok' })
    }
  })

  it('a circuit one selector opens is skipped by another sharing the store', () => {
    const store = createMemoryCircuitStore()
    const group = groupOf([upstream('a'), upstream('b')])
    const clock = { now: 5_000 }
    const make = () =>
      createHealthSelector({
        registry: createStaticGroupRegistry([group]),
        circuitStore: store,
        now: () => clock.now,
        random: () => 0,
        logger: { warn: () => undefined },
      })
    const one = make()
    const two = make()
    pick(one, group).finish({ kind: 'failed', status: 429, retryAfterMs: 10_000 })
    for (let index = 0; index < 10; index += 1) {
      const choice = pick(two, group)
      expect(choice.upstream.id).toBe('b')
      choice.finish({ kind: 'ok' })
    }
    clock.now += 10_000
    expect(pick(two, group).upstream.id).toBe('a')
  })

  it('picks another upstream than those tried, and says exhausted when none is left', () => {
    const group = groupOf([upstream('a'), upstream('b')])
    const { selector } = setup(group)
    expect(
      pick(selector, group, { tried: new Set(['a']), sessionHint: undefined }).upstream.id,
    ).toBe('b')
    expect(refuse(selector, group, { tried: new Set(['a', 'b']), sessionHint: undefined })).toEqual(
      {
        unavailable: true,
        retryAfterMs: undefined,
        reason: 'exhausted',
      },
    )
    expect(
      pick(selector, group, { tried: new Set(['a', 'b']), retrySame: 'a', sessionHint: undefined })
        .upstream.id,
    ).toBe('a')
  })

  it('shares one selection object among plain attempts of one upstream (nothing allocated)', () => {
    const group = groupOf([upstream('a')])
    const { selector } = setup(group)
    const one = pick(selector, group)
    const two = pick(selector, group)
    expect(one).toBe(two)
    one.finish({ kind: 'ok' })
    two.finish({ kind: 'ok' })
  })
})

describe('health selector: balancing and concurrency', () => {
  it('least-in-flight picks the upstream with the fewest calls in flight for its weight', () => {
    const group = groupOf([upstream('a'), upstream('b', { weight: 2 })], {
      balancing: 'least-in-flight',
    })
    const { selector } = setup(group)
    const held = Array.from({ length: 6 }, () => pick(selector, group))
    const counts = { a: 0, b: 0 }
    for (const choice of held) counts[choice.upstream.id as 'a' | 'b'] += 1
    expect(counts).toEqual({ a: 2, b: 4 })
    for (const choice of held.filter((choice) => choice.upstream.id === 'b')) {
      choice.finish({ kind: 'ok' })
    }
    expect(pick(selector, group).upstream.id).toBe('b')
  })

  it('maxConcurrent: past it another upstream is picked, then Unavailable (concurrency); a stream holds its slot until it ends', async () => {
    const group = groupOf([
      upstream('a', { maxConcurrent: 2 }),
      upstream('b', { maxConcurrent: 1 }),
    ])
    const { selector } = setup(group, { random: () => 0 })
    const held = [pick(selector, group), pick(selector, group), pick(selector, group)]
    expect(held.map((choice) => choice.upstream.id).sort()).toEqual(['a', 'a', 'b'])
    expect(refuse(selector, group)).toMatchObject({ reason: 'concurrency' })
    let endStream!: () => void
    const streamEnded = new Promise<void>((resolve) => (endStream = resolve))
    held[0]!.finish({ kind: 'ok' }, streamEnded)
    expect(refuse(selector, group)).toMatchObject({ reason: 'concurrency' })
    expect((await selector.health()).map((entry) => entry.inFlight)).toEqual([2, 1])
    endStream()
    await streamEnded
    await Promise.resolve()
    expect(pick(selector, group).upstream.id).toBe('a')
  })
})

describe('health selector: session affinity', () => {
  const three = () =>
    groupOf([upstream('a'), upstream('b'), upstream('c')], { sessionAffinity: {} })

  it('keeps 100 requests of one session on one upstream while healthy, moves them when not, and spreads sessions', () => {
    const group = three()
    const { selector, clock } = setup(group)
    const session: SelectContext = { tried: new Set(), sessionHint: 'thread-1' }
    const home = pick(selector, group, session).upstream.id
    for (let index = 0; index < 100; index += 1) {
      const choice = pick(selector, group, session)
      expect(choice.upstream.id).toBe(home)
      choice.finish({ kind: 'ok' })
    }
    // Its upstream goes down: the session moves, all 100 to the same second choice.
    const down = pick(selector, group, session)
    down.finish({ kind: 'failed', status: 503, retryAfterMs: 60_000 })
    const moved = new Set<string>()
    for (let index = 0; index < 100; index += 1) {
      const choice = pick(selector, group, session)
      moved.add(choice.upstream.id)
      choice.finish({ kind: 'ok' })
    }
    expect(moved.size).toBe(1)
    expect(moved.has(home)).toBe(false)
    // And back home once the circuit closes.
    clock.now += 60_000
    pick(selector, group, session).finish({ kind: 'ok' })
    expect(pick(selector, group, session).upstream.id).toBe(home)
    // Different sessions spread over all three.
    const spread = new Map<string, number>()
    for (let index = 0; index < 300; index += 1) {
      const id = pick(selector, group, { tried: new Set(), sessionHint: `s-${index}` }).upstream.id
      spread.set(id, (spread.get(id) ?? 0) + 1)
    }
    expect([...spread.values()].every((count) => count > 60)).toBe(true)
  })

  it('ignores the hint in a group without affinity', () => {
    const group = groupOf([upstream('a'), upstream('b')])
    const draws = [0.1, 0.9]
    const { selector } = setup(group, { random: () => draws.shift() ?? 0 })
    const session: SelectContext = { tried: new Set(), sessionHint: 'thread-1' }
    expect([
      pick(selector, group, session).upstream.id,
      pick(selector, group, session).upstream.id,
    ]).toEqual(['a', 'b'])
  })
})

describe('health selector: key pools', () => {
  const pooled = () => groupOf([upstream('a', { credentials: ['sk-…1111', 'sk-…2222'] })])

  it('a 401 on key 1 takes it out of rotation (masked reason in health and the log); the retry uses key 2', async () => {
    const group = pooled()
    const { selector, lines } = setup(group)
    const firstTry = pick(selector, group)
    expect(firstTry.credential).toEqual({ index: 0, masked: 'sk-…1111' })
    firstTry.finish({ kind: 'rejected-key', status: 401, reason: 'refused (HTTP 401)' })
    const retry = pick(selector, group, {
      tried: new Set(['a']),
      retrySame: 'a',
      sessionHint: undefined,
    })
    expect(retry.credential).toEqual({ index: 1, masked: 'sk-…2222' })
    retry.finish({ kind: 'ok' })
    expect(lines).toEqual([
      '[model-gateway] upstream g/a: key sk-…1111 out of rotation for 3600 s: 401 refused (HTTP 401).',
    ])
    expect((await selector.health())[0]).toMatchObject({
      circuit: 'closed',
      keys: [{ masked: 'sk-…1111', disabled: '401 refused (HTTP 401)' }, { masked: 'sk-…2222' }],
    })
    // Every later call uses key 2 only.
    for (let index = 0; index < 5; index += 1) {
      const choice = pick(selector, group)
      expect(choice.credential?.index).toBe(1)
      choice.finish({ kind: 'ok' })
    }
  })

  it('a pool with every key out of rotation makes its upstream unavailable (no-keys, until the first returns)', () => {
    const group = pooled()
    const { selector, clock } = setup(group)
    pick(selector, group).finish({
      kind: 'rejected-key',
      status: 403,
      reason: 'refused (HTTP 403)',
    })
    pick(selector, group).finish({
      kind: 'rejected-key',
      status: 429,
      reason: 'out of quota (HTTP 429)',
    })
    expect(refuse(selector, group)).toEqual({
      unavailable: true,
      retryAfterMs: 600_000,
      reason: 'no-keys',
    })
    clock.now += 600_000
    expect(pick(selector, group).credential?.index).toBe(1)
  })

  it('a 401 on an upstream with one key opens its circuit', () => {
    const group = groupOf([upstream('a'), upstream('b')])
    const { selector } = setup(group, { random: () => 0 })
    pick(selector, group).finish({
      kind: 'rejected-key',
      status: 401,
      reason: 'refused (HTTP 401)',
    })
    for (let index = 0; index < 5; index += 1) expect(pick(selector, group).upstream.id).toBe('b')
  })
})
