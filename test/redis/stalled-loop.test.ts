import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisUsageMeter } from '../../src/redis/index'
import { StoreTimeoutError, withTimeout } from '../../src/redis/with-timeout'
import type { ReserveResult } from '../../src/usage/usage-meter'
import {
  connectRedis,
  deletePrefix,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'

let connections: TestRedis[]
beforeAll(async () => {
  connections = await Promise.all([connectRedis(), connectRedis()])
})
afterAll(() => {
  for (const connection of connections) connection.destroy()
})

/** Keeps the event loop busy, as a burst of work on a loaded machine does. */
function block(ms: number): void {
  const until = Date.now() + ms
  while (Date.now() < until) {
    // busy
  }
}

describe('a Redis call bounded by the store timeout', () => {
  it('is not counted as an outage when the process itself was stalled past the timeout', async () => {
    // What made "concurrency across two instances" admit 5 of 3 now and then under a loaded
    // suite: a stall longer than the timeout made every reserve in flight "time out", both meters
    // fell back to their local share (1 each), beside the 3 Redis had admitted.
    const prefix = uniquePrefix('stall')
    const logged: string[] = []
    const logger = {
      warn: (line: string) => logged.push(line),
      error: (line: string) => logged.push(line),
    }
    const meters = connections.map((connection) =>
      createRedisUsageMeter({ client: scriptClient(connection), prefix, timeoutMs: 300, logger }),
    )
    const reserve = (index: number) =>
      meters[index % 2]!.reserve({
        requestId: `r${index}`,
        keyId: 'stalled',
        quotaTokens: undefined,
        limits: { concurrency: 3 },
        estimatedTokens: 1,
      }) as Promise<ReserveResult>
    // Scripts loaded and hashed, so that each reserve below is one round trip.
    for (const meter of meters) {
      await meter.reserve({
        requestId: 'warm-up',
        keyId: 'warm-up',
        quotaTokens: undefined,
        estimatedTokens: 1,
      })
    }
    try {
      const results = Array.from({ length: 10 }, (_, index) => reserve(index))
      block(800)
      const granted = (await Promise.all(results)).filter((result) => result.granted)
      expect(granted).toHaveLength(3)
      expect(logged).toEqual([])
    } finally {
      await deletePrefix(connections[0]!, prefix)
    }
  })

  it('takes an answer that came while the loop was stalled past the bound', async () => {
    // The answer is ready at 150 ms, the bound is 100 ms, and the loop is busy until 400 ms:
    // when it looks again, both the bound and the answer are due. The answer wins.
    const answer = new Promise((resolve) => setTimeout(() => resolve('answer'), 150))
    const bounded = withTimeout(answer, 100)
    block(400)
    await expect(bounded).resolves.toBe('answer')
  })

  it('still times out when the store does not answer', async () => {
    const started = Date.now()
    const never = new Promise<never>(() => undefined)
    await expect(withTimeout(never, 100)).rejects.toBeInstanceOf(StoreTimeoutError)
    expect(Date.now() - started).toBeGreaterThanOrEqual(100)
  })

  it('answers with the store’s answer, or its error, when it comes in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 100)).resolves.toBe(7)
    await expect(withTimeout(Promise.reject(new Error('refused')), 100)).rejects.toThrow('refused')
  })
})
