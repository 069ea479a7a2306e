import { describe, expect, it } from 'vitest'
import { CircuitBreaker } from '../../src/failover/circuit-breaker'
import {
  computedCooldownMs,
  defaultCircuitPolicy,
  resolveCircuitPolicy,
} from '../../src/failover/circuit-policy'

const noJitter = () => 0.5
const policy = resolveCircuitPolicy({ jitter: 0 })

describe('circuit breaker', () => {
  it('opens on a 429 for exactly the retry-after, then lets one probe through, and a good probe closes it', () => {
    const breaker = new CircuitBreaker(policy, noJitter)
    expect(breaker.failed(1_000, { immediate: true, retryAfterMs: 7_000 }, false)).toBe(true)
    expect(breaker.state).toBe('open')
    expect(breaker.openUntil).toBe(8_000)
    expect(breaker.availability(7_999)).toBe('blocked')
    expect(breaker.retryAfterMs(5_000)).toBe(3_000)
    expect(breaker.availability(8_000)).toBe('probe')
    breaker.takeProbe()
    expect(breaker.state).toBe('half-open')
    // The probe is out: nobody else goes.
    expect(breaker.availability(8_001)).toBe('blocked')
    expect(breaker.retryAfterMs(8_001)).toBeUndefined()
    breaker.succeeded(9_000, true)
    expect(breaker.state).toBe('closed')
    expect(breaker.availability(9_000)).toBe('closed')
  })

  it('opens on a 429 without retry-after for the cooldown, doubling after each failed probe up to the cap', () => {
    const breaker = new CircuitBreaker(
      resolveCircuitPolicy({ jitter: 0, maxCooldownMs: 35_000 }),
      noJitter,
    )
    breaker.failed(0, { immediate: true }, false)
    expect(breaker.openUntil).toBe(10_000)
    breaker.takeProbe()
    breaker.failed(10_000, { immediate: false }, true)
    expect(breaker.openUntil).toBe(30_000)
    breaker.takeProbe()
    breaker.failed(30_000, { immediate: false }, true)
    expect(breaker.openUntil).toBe(65_000)
    breaker.takeProbe()
    breaker.succeeded(66_000, true)
    // Closed again: the next opening starts from the base cooldown.
    breaker.failed(70_000, { immediate: true }, false)
    expect(breaker.openUntil).toBe(80_000)
  })

  it('caps a retry-after at maxCooldownMs', () => {
    const breaker = new CircuitBreaker(policy, noJitter)
    breaker.failed(0, { immediate: true, retryAfterMs: 3_600_000 }, false)
    expect(breaker.openUntil).toBe(defaultCircuitPolicy.maxCooldownMs)
  })

  it('opens after consecutiveFailures failures in a row; a success in between resets the count', () => {
    const breaker = new CircuitBreaker(
      resolveCircuitPolicy({ jitter: 0, failureRatio: 1 }),
      noJitter,
    )
    for (let index = 0; index < 4; index += 1) {
      expect(breaker.failed(index, { immediate: false }, false)).toBe(false)
    }
    breaker.succeeded(5, false)
    for (let index = 0; index < 4; index += 1)
      breaker.failed(10 + index, { immediate: false }, false)
    expect(breaker.state).toBe('closed')
    expect(breaker.failed(20, { immediate: false }, false)).toBe(true)
    expect(breaker.reason).toBe('5 failures in a row')
  })

  it('opens when failures pass the ratio of at least minimumCalls attempts within the window', () => {
    const breaker = new CircuitBreaker(
      resolveCircuitPolicy({
        jitter: 0,
        consecutiveFailures: 100,
        minimumCalls: 10,
        failureRatio: 0.5,
      }),
      noJitter,
    )
    const start = 1_000_000
    // Alternate: 50 % failures never exceed 0.5.
    for (let index = 0; index < 20; index += 1) {
      if (index % 2 === 0) breaker.succeeded(start + index, false)
      else breaker.failed(start + index, { immediate: false }, false)
    }
    expect(breaker.state).toBe('closed')
    breaker.failed(start + 21, { immediate: false }, false)
    expect(breaker.state).toBe('open')
    expect(breaker.reason).toBe('failure ratio exceeded')
  })

  it('forgets attempts older than the window', () => {
    const breaker = new CircuitBreaker(
      resolveCircuitPolicy({ jitter: 0, consecutiveFailures: 100, minimumCalls: 4 }),
      noJitter,
    )
    for (let index = 0; index < 3; index += 1)
      breaker.failed(index * 10, { immediate: false }, false)
    breaker.succeeded(60, false)
    // The window is 60 s: these three failures are long gone when the next ones come.
    breaker.failed(200_000, { immediate: false }, false)
    expect(breaker.state).toBe('closed')
  })

  it('hears only the probe while half-open: late answers of older attempts change nothing', () => {
    const breaker = new CircuitBreaker(policy, noJitter)
    breaker.failed(0, { immediate: true, retryAfterMs: 1_000 }, false)
    breaker.takeProbe()
    breaker.succeeded(1_500, false)
    expect(breaker.state).toBe('half-open')
    expect(breaker.failed(1_600, { immediate: true }, false)).toBe(false)
    expect(breaker.state).toBe('half-open')
    // A probe that ended without a verdict frees the way for another.
    breaker.releaseProbe(true)
    expect(breaker.availability(1_700)).toBe('probe')
  })

  it('adopts an opening from another instance without raising its exponent', () => {
    const breaker = new CircuitBreaker(policy, noJitter)
    breaker.adopt(5_000, 0)
    expect(breaker.availability(4_999)).toBe('blocked')
    expect(breaker.openings).toBe(0)
    expect(breaker.availability(5_000)).toBe('probe')
  })

  it('spreads computed cooldowns by the jitter and never past the cap', () => {
    const jittery = resolveCircuitPolicy({})
    expect(computedCooldownMs(jittery, 1, () => 0)).toBe(8_000)
    expect(computedCooldownMs(jittery, 1, () => 0.999999)).toBe(12_000)
    expect(computedCooldownMs(jittery, 20, () => 0.999999)).toBe(300_000)
  })
})

describe('circuitBreaker: false', () => {
  it('never opens, whatever fails', () => {
    const breaker = new CircuitBreaker(resolveCircuitPolicy(false), noJitter)
    for (let index = 0; index < 50; index += 1) {
      expect(breaker.failed(index, { immediate: true, retryAfterMs: 60_000 }, false)).toBe(false)
      expect(breaker.failed(index, { immediate: false }, false)).toBe(false)
    }
    expect(breaker.availability(100)).toBe('closed')
  })
})
