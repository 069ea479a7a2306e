import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisUsageMeter } from '../../src/redis/index'
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

describe('the Redis meter on a stalled event loop', () => {
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
})
