import fc from 'fast-check'
import { appendFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { createHealthSelector } from '../../src/failover/health-selector'
import { LatencyMeasure, latencySample } from '../../src/failover/latency-measure'
import {
  isUnavailable,
  type Selection,
  type SelectContext,
} from '../../src/failover/upstream-selector'
import type { Group } from '../../src/routing/group-registry'
import { createStaticGroupRegistry } from '../../src/routing/static-group-registry'
import type { UpstreamProvider } from '../../src/upstream/provider'
import { percentiles } from './routing-fakes'

const figures: string[] = []
afterAll(() => {
  const file = process.env.ROUTING_FIGURES
  if (file !== undefined) appendFileSync(file, `${figures.join('\n')}\n`)
})

function upstream(id: string, extra: Partial<UpstreamProvider> = {}): UpstreamProvider {
  return { id, protocol: 'openai', send: () => Promise.reject(new Error('not called')), ...extra }
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

function setup(group: Group, random: () => number = Math.random) {
  const clock = { now: 1_000_000 }
  const selector = createHealthSelector({
    registry: createStaticGroupRegistry([group]),
    now: () => clock.now,
    random,
    logger: { warn: () => {} },
  })
  const pick = (context: Partial<SelectContext> = {}): Selection => {
    const choice = selector.select(group, {
      tried: new Set(),
      sessionHint: undefined,
      model: 'm',
      ...context,
    })
    if (choice instanceof Promise || isUnavailable(choice)) throw new Error('expected a selection')
    return choice
  }
  return { selector, clock, pick }
}

/** p50/p99 of `select` + `finish` over `count` picks, in µs, for the report. */
function overhead(scenario: string, pick: () => Selection, count = 20_000) {
  const timings: number[] = []
  for (let index = 0; index < count; index += 1) {
    const started = performance.now()
    const selection = pick()
    timings.push(performance.now() - started)
    selection.finish({ kind: 'ok' })
  }
  const { p50, p99 } = percentiles(timings.slice(count / 2))
  figures.push(
    `${scenario}: select() p50 ${(p50 * 1000).toFixed(2)} µs, p99 ${(p99 * 1000).toFixed(2)} µs (direct)`,
  )
}

describe('priority tiers in the selector', () => {
  it('a resting tier 0 sends calls to tier 1; its recovery brings them back', () => {
    const group = groupOf([upstream('payg', { priority: 1 }), upstream('committed')])
    const { pick, clock } = setup(group)
    const first = pick()
    expect(first.upstream.id).toBe('committed')
    expect(first.choice).toEqual({ tier: 0, strategy: 'weighted' })
    first.finish({ kind: 'failed', status: 429, retryAfterMs: 5_000, answered: true })
    const spill = pick()
    expect(spill.upstream.id).toBe('payg')
    expect(spill.choice).toEqual({ tier: 1, strategy: 'weighted' })
    spill.finish({ kind: 'ok' })
    clock.now += 5_000
    const back = pick()
    expect(back.upstream.id).toBe('committed')
    back.finish({ kind: 'ok' })
    overhead('tiers, tier 0 healthy', () => pick())
  })

  it('session affinity keeps to its upstream within the lowest tier', () => {
    const group = groupOf([upstream('a'), upstream('b'), upstream('spare', { priority: 1 })], {
      sessionAffinity: {},
    })
    const { pick } = setup(group)
    const ids = new Set<string>()
    for (let index = 0; index < 20; index += 1) {
      const selection = pick({ sessionHint: 'session-1' })
      ids.add(selection.upstream.id)
      expect(selection.choice).toEqual({ tier: 0, strategy: 'affinity' })
      selection.finish({ kind: 'ok' })
    }
    expect(ids.size).toBe(1)
    expect(ids.has('spare')).toBe(false)
  })

  it('never picks a resting upstream, or a higher tier, while a lower tier has a fit one (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            priority: fc.integer({ min: 0, max: 3 }),
            weight: fc.double({ min: 0.1, max: 10, noNaN: true }),
            resting: fc.boolean(),
            full: fc.boolean(),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.constantFrom('weighted', 'least-in-flight', 'latency', 'cost'),
        fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (specs, balancing, hint, draw) => {
          const upstreams = specs.map((spec, index) =>
            upstream(`u${index}`, {
              priority: spec.priority,
              weight: spec.weight,
              maxConcurrent: 1,
            }),
          )
          const group = groupOf(upstreams, {
            balancing,
            sessionAffinity: hint === undefined ? undefined : {},
          })
          const { pick, selector } = setup(group, () => draw)
          // Rest some (a 429 for the model), fill others (their one slot taken).
          for (const [index, spec] of specs.entries()) {
            if (!spec.resting && !spec.full) continue
            const selection = pick({ retrySame: `u${index}`, resting: true })
            expect(selection.upstream.id).toBe(`u${index}`)
            if (spec.resting)
              selection.finish({
                kind: 'failed',
                status: 429,
                retryAfterMs: 60_000,
                answered: true,
              })
          }
          const fit = specs.flatMap((spec, index) => (spec.resting || spec.full ? [] : [index]))
          const choice = selector.select(group, {
            tried: new Set(),
            sessionHint: hint,
            model: 'm',
            stream: false,
            estimateNano: 1000,
          })
          if (fit.length === 0) {
            if (!(choice instanceof Promise)) expect(isUnavailable(choice)).toBe(true)
            return
          }
          if (choice instanceof Promise || isUnavailable(choice))
            throw new Error('expected a selection')
          const index = Number(choice.upstream.id.slice(1))
          expect(fit).toContain(index)
          const lowest = Math.min(...fit.map((i) => specs[i]!.priority))
          expect(specs[index]!.priority).toBe(lowest)
          expect(choice.choice?.tier).toBe(lowest)
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('latency measures', () => {
  it('never divides by zero: no output tokens counts as one, streams rank by raw time to first token', () => {
    expect(latencySample(400, false, 0)).toBe(400)
    expect(latencySample(400, false, undefined)).toBe(400)
    expect(latencySample(400, false, 10)).toBe(40)
    expect(latencySample(400, true, 10)).toBe(400)
    const measure = new LatencyMeasure()
    expect(measure.fresh(0)).toBe(false)
    measure.add(100, 1_000)
    expect(measure.value).toBe(100)
    measure.add(200, 1_010)
    // Dense samples move it at least 10% each.
    expect(measure.value).toBeCloseTo(110, 5)
    measure.add(50, 1_010 + 300_001)
    // A stale measure is replaced by its next sample.
    expect(measure.value).toBe(50)
    measure.add(Number.NaN, 1_010 + 300_002)
    expect(measure.value).toBe(50)
  })

  it('explores an unmeasured upstream one call at a time, scored as the median of its peers', () => {
    const group = groupOf([upstream('fast'), upstream('slow'), upstream('new')], {
      balancing: 'latency',
    })
    const { pick } = setup(group)
    const feed = (id: string, ms: number) => {
      for (;;) {
        const selection = pick({ tried: new Set(['fast', 'slow', 'new'].filter((x) => x !== id)) })
        selection.finish({ kind: 'ok', elapsedMs: ms, stream: false, outputTokens: 10 })
        return
      }
    }
    feed('fast', 50)
    feed('slow', 400)
    // The fast one busy with 4 calls scores 5 × 5 = 25 ms/token, over the median 22.5: explore.
    const busy = [pick(), pick(), pick(), pick()]
    expect(busy.map((s) => s.upstream.id)).toEqual(['fast', 'fast', 'fast', 'fast'])
    const probe = pick()
    expect(probe.upstream.id).toBe('new')
    expect(probe.choice).toEqual(expect.objectContaining({ strategy: 'latency' }))
    // Its probe out, it takes no second call until the first comes back.
    expect(pick().upstream.id).not.toBe('new')
    probe.finish({ kind: 'ok', elapsedMs: 60, stream: false, outputTokens: 10 })
    for (const selection of busy)
      selection.finish({ kind: 'ok', elapsedMs: 50, stream: false, outputTokens: 10 })
    overhead('latency, 3 upstreams measured', () => pick())
  })
})

describe('cost balancing in the selector', () => {
  it('the cheapest after surcharge and multiplier; ties within 1% and unpriced calls by weight', () => {
    const surcharge = { multiplier: 1.1, source: 'regional' }
    const group = groupOf(
      [
        upstream('regional', { priceSurcharge: () => surcharge, priceMultiplier: 0.8 }),
        upstream('global', { priceMultiplier: 0.9 }),
      ],
      { balancing: 'cost' },
    )
    const { pick } = setup(group)
    // 0.88 vs 0.9: the regional one, surcharge included, is cheaper.
    const chosen = pick({ estimateNano: 1_000_000 })
    expect(chosen.upstream.id).toBe('regional')
    expect(chosen.choice).toEqual({ tier: 0, strategy: 'cost', score: expect.closeTo(880_000, 0) })
    chosen.finish({ kind: 'ok' })
    const unpriced = pick({ estimateNano: undefined })
    expect(unpriced.choice?.strategy).toBe('weighted')
    unpriced.finish({ kind: 'ok' })
    overhead('cost, 2 priced upstreams', () => pick({ estimateNano: 1_000_000 }))
  })
})
