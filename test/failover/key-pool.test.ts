import { describe, expect, it } from 'vitest'
import { defaultKeyCooldowns, KeyPool } from '../../src/failover/key-pool'
import { hashText } from '../../src/failover/rendezvous'

const masked = ['sk-…aaaa', 'sk-…bbbb', 'sk-…cccc']

describe('key pool', () => {
  it('rotates round-robin over the keys in rotation', () => {
    const pool = new KeyPool(masked, 'round-robin', defaultKeyCooldowns)
    expect([0, 1, 2, 3, 4].map(() => pool.take(0, undefined))).toEqual([0, 1, 2, 0, 1])
  })

  it('least-used takes the key with the fewest attempts in flight', () => {
    const pool = new KeyPool(masked, 'least-used', defaultKeyCooldowns)
    expect(pool.take(0, undefined)).toBe(0)
    expect(pool.take(0, undefined)).toBe(1)
    expect(pool.take(0, undefined)).toBe(2)
    pool.release(1)
    expect(pool.take(0, undefined)).toBe(1)
    pool.release(0)
    pool.release(2)
    expect(pool.take(0, undefined)).toBe(2)
  })

  it('a 401 takes a key out for an hour, a quota error for ten minutes, with the reason masked in health', () => {
    const pool = new KeyPool(masked, 'round-robin', defaultKeyCooldowns)
    const line = pool.disable(0, 401, 'invalid x-api-key', 1_000)
    expect(line).toBe('key sk-…aaaa out of rotation for 3600 s: 401 invalid x-api-key')
    pool.disable(1, 429, 'insufficient_quota', 1_000)
    expect(pool.health(2_000)).toEqual([
      { masked: 'sk-…aaaa', disabled: '401 invalid x-api-key' },
      { masked: 'sk-…bbbb', disabled: '429 insufficient_quota' },
      { masked: 'sk-…cccc' },
    ])
    expect([0, 1, 2].map(() => pool.take(2_000, undefined))).toEqual([2, 2, 2])
    expect(pool.take(1_000 + 600_000, undefined)).toBe(1)
    expect(pool.health(1_000 + 3_600_000)).toEqual(masked.map((key) => ({ masked: key })))
  })

  it('with every key out, it has none and says when the first returns', () => {
    const pool = new KeyPool(masked.slice(0, 2), 'round-robin', defaultKeyCooldowns)
    pool.disable(0, 403, 'forbidden', 0)
    pool.disable(1, 402, 'billing', 0)
    expect(pool.hasKey(10)).toBe(false)
    expect(pool.take(10, undefined)).toBeUndefined()
    expect(pool.soonestReturnMs(10)).toBe(600_000 - 10)
  })

  it('keeps a session on its key while the key is in rotation, and moves it when not', () => {
    const pool = new KeyPool(masked, 'round-robin', defaultKeyCooldowns)
    const session = hashText('thread-42')
    const first = pool.take(0, session)!
    for (let index = 0; index < 20; index += 1) expect(pool.take(0, session)).toBe(first)
    pool.disable(first, 401, 'revoked', 0)
    const second = pool.take(1, session)
    expect(second).not.toBe(first)
    expect(second).toBeDefined()
  })
})
