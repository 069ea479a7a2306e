import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCredentialCache } from '../../src/upstream/credentials/credential-cache'

const minute = 60_000

/** A source that hands out numbered tokens living `lifetime` ms, counting its fetches. */
function countingSource(clock: { now: number }, lifetime: number, delay = 0) {
  let issued = 0
  return {
    get issued() {
      return issued
    },
    source: async () => {
      issued += 1
      const value = `token-${issued}`
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
      return { value, expiresAt: clock.now + lifetime }
    },
  }
}

describe('credential cache', () => {
  it('fetches once for a burst of 200 concurrent calls', async () => {
    const clock = { now: 0 }
    const counted = countingSource(clock, 60 * minute, 5)
    const cache = createCredentialCache(counted.source, { now: () => clock.now })
    const tokens = await Promise.all(Array.from({ length: 200 }, () => cache.get()))
    expect(new Set(tokens)).toEqual(new Set(['token-1']))
    expect(counted.issued).toBe(1)
    expect(cache.fetches).toBe(1)
  })

  it('keeps a token until 5 minutes before it expires, then refreshes it once', async () => {
    const clock = { now: 0 }
    const counted = countingSource(clock, 60 * minute)
    const cache = createCredentialCache(counted.source, { now: () => clock.now })
    expect(await cache.get()).toBe('token-1')
    clock.now = 55 * minute - 1
    expect(await cache.get()).toBe('token-1')
    clock.now = 55 * minute
    const burst = await Promise.all(Array.from({ length: 50 }, () => cache.get()))
    expect(new Set(burst)).toEqual(new Set(['token-2']))
    expect(counted.issued).toBe(2)
  })

  it('refreshes a short-lived credential at half its life, not on every call', async () => {
    const clock = { now: 0 }
    const counted = countingSource(clock, 4 * minute)
    const cache = createCredentialCache(counted.source, { now: () => clock.now })
    await cache.get()
    clock.now = 2 * minute - 1
    await cache.get()
    expect(counted.issued).toBe(1)
    clock.now = 2 * minute
    expect(await cache.get()).toBe('token-2')
  })

  it('invalidating a refused token refreshes once, whatever the number of refusals', async () => {
    const clock = { now: 0 }
    const counted = countingSource(clock, 60 * minute, 2)
    const cache = createCredentialCache(counted.source, { now: () => clock.now })
    const stale = await cache.get()
    // Fifty calls were refused with the same token: each invalidates it, then asks again.
    const renewed = await Promise.all(
      Array.from({ length: 50 }, async () => {
        cache.invalidate(stale)
        return cache.get()
      }),
    )
    // The first invalidation forgets the token; later ones find the refresh under way or done.
    expect(new Set(renewed).size).toBeLessThanOrEqual(2)
    expect(renewed.every((token) => token !== stale)).toBe(true)
    cache.invalidate(stale)
    expect(await cache.get()).toBe(renewed.at(-1))
  })

  it('does not cache a failed fetch, and keeps a still-valid credential when a refresh fails', async () => {
    const clock = { now: 0 }
    let fail = true
    let issued = 0
    const cache = createCredentialCache(
      async () => {
        if (fail) throw new Error('token endpoint down')
        issued += 1
        return { value: `token-${issued}`, expiresAt: clock.now + 60 * minute }
      },
      { now: () => clock.now },
    )
    await expect(cache.get()).rejects.toThrow('token endpoint down')
    fail = false
    // The failure is answered from memory for a second: an endpoint that is down gets one fetch
    // per second, not one per request.
    await expect(cache.get()).rejects.toThrow('token endpoint down')
    clock.now += 1_000
    expect(await cache.get()).toBe('token-1')
    fail = true
    clock.now = 57 * minute // inside the margin, not yet expired
    expect(await cache.get()).toBe('token-1')
    clock.now = 61 * minute // expired: nothing to fall back on
    await expect(cache.get()).rejects.toThrow('token endpoint down')
  })

  it('gives up on a fetch that never answers, and fetches again after the hold', async () => {
    let calls = 0
    const clock = { now: 0 }
    const cache = createCredentialCache(
      () => {
        calls += 1
        return calls === 1
          ? new Promise<never>(() => undefined)
          : Promise.resolve({ value: 'late-token', expiresAt: clock.now + 60 * minute })
      },
      { now: () => clock.now, fetchTimeoutMs: 20 },
    )
    const burst = await Promise.allSettled(Array.from({ length: 10 }, () => cache.get()))
    expect(burst.every((result) => result.status === 'rejected')).toBe(true)
    expect(calls).toBe(1)
    clock.now += 1_000
    expect(await cache.get()).toBe('late-token')
  })

  it('never fetches more than once per expiry under any sequence of gets and clock steps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 20 * minute }), fc.integer({ min: 1, max: 8 })),
          {
            maxLength: 30,
          },
        ),
        async (steps) => {
          const clock = { now: 0 }
          const counted = countingSource(clock, 60 * minute)
          const cache = createCredentialCache(counted.source, { now: () => clock.now })
          let expected = 0
          let refreshAt = -1
          for (const [advance, burst] of steps) {
            clock.now += advance
            if (clock.now >= refreshAt) {
              expected += 1
              refreshAt = clock.now + 55 * minute
            }
            const tokens = await Promise.all(Array.from({ length: burst }, () => cache.get()))
            expect(new Set(tokens).size).toBe(1)
          }
          expect(counted.issued).toBe(expected)
        },
      ),
      { numRuns: 100 },
    )
  })
})
