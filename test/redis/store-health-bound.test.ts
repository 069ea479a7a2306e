import { describe, expect, it } from 'vitest'
import { createStoreHealth } from '../../src/redis/store-health'

describe('store health over many shards', () => {
  it('remembers at most 10,000 shards down while the store is down whole, logging once', () => {
    const lines: string[] = []
    const logger = {
      warn: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    }
    let now = 1_000
    const health = createStoreHealth({
      name: 'Redis usage store',
      whileDown: 'Budgeted keys get 503.',
      probeIntervalMs: 1_000,
      now: () => now,
      logger,
    })
    // One shard per key: a Redis that is down whole sees every caller's own hash tag.
    for (let index = 0; index < 10_500; index += 1) health.failed(new Error('down'), `key-${index}`)
    expect(health.down).toBe(true)
    expect(lines).toHaveLength(1)
    // The oldest shards were forgotten: they are tried at once (one probe each) ...
    expect(health.shouldTry('key-0')).toBe(true)
    expect(health.shouldTry('key-499')).toBe(true)
    // ... while the recent ones still wait for their probe interval.
    expect(health.shouldTry('key-10499')).toBe(false)
    now += 1_000
    expect(health.shouldTry('key-10499')).toBe(true)
  })
})
