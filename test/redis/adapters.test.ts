import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisUsageMeter, type RedisScriptClient } from '../../src/redis/index'
import {
  connectRedis,
  deletePrefix,
  redisUrl,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'
import { repoRoot, runtimeBin } from '../helpers/spawn-runtime'
import { describeMeterContract } from '../usage/meter-contract'

/**
 * The adapters of docs/shared-state.md for drivers other than node-redis, run as written against the machine's
 * Redis: ioredis through the whole meter contract, Bun's built-in `RedisClient` in Bun itself.
 * (`@upstash/redis` speaks REST to Upstash only; its `eval(script, keys, args)` and
 * `evalsha(sha, keys, args)` are the client's shape as they are.)
 */
let cleanup: TestRedis
let ioredis: Redis
beforeAll(async () => {
  // Starts the machine's Redis if it is down.
  cleanup = await connectRedis()
  // As the docs say: no offline queue, so a call fails at once while disconnected.
  ioredis = new Redis(redisUrl, { enableOfflineQueue: false, lazyConnect: true })
  await ioredis.connect()
})
afterAll(async () => {
  ioredis.disconnect()
  cleanup.destroy()
})

/** The documented ioredis adapter. */
const ioredisClient = (): RedisScriptClient => ({
  eval: (script, keys, args) => ioredis.eval(script, keys.length, ...keys, ...args),
  evalsha: (sha, keys, args) => ioredis.evalsha(sha, keys.length, ...keys, ...args),
})

describeMeterContract('redis over ioredis', async () => {
  const prefix = uniquePrefix('ioredis')
  const leaseMs = 400
  return {
    meter: createRedisUsageMeter({ client: ioredisClient(), prefix, leaseMs, timeoutMs: 2000 }),
    leaseMs,
    elapse: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    close: async () => void (await deletePrefix(cleanup, prefix)),
  }
})

describe('the documented adapters', () => {
  it('ioredis: a script the server has not seen is loaded on NOSCRIPT', async () => {
    const { defineRedisScript } = await import('../../src/redis/index')
    const script = defineRedisScript(`return ARGV[1] .. '${crypto.randomUUID()}'`)
    expect(String(await script.run(ioredisClient(), [], ['x']))).toMatch(/^x[0-9a-f-]{36}$/)
  })

  it(
    "Bun's RedisClient: the meter reserves, settles and reports in Bun",
    { timeout: 60_000 },
    async () => {
      const prefix = uniquePrefix('bun')
      const program = join(tmpdir(), `mg-bun-redis-${prefix}.mjs`)
      writeFileSync(
        program,
        `import { RedisClient } from 'bun'
import { createRedisUsageMeter, defineRedisScript } from ${JSON.stringify(join(repoRoot, 'dist/redis/index.js'))}
const bun = new RedisClient(process.env.TEST_REDIS_URL, { enableOfflineQueue: false })
// Without the offline queue, commands before the connection is up fail: connect first.
await bun.connect()
const client = {
  eval: (script, keys, args) => bun.send('EVAL', [script, String(keys.length), ...keys, ...args]),
  evalsha: (sha, keys, args) => bun.send('EVALSHA', [sha, String(keys.length), ...keys, ...args]),
}
// A script no server has seen: EVALSHA answers NOSCRIPT, and the script is loaded by EVAL.
const fresh = await defineRedisScript("return ARGV[1] .. '-${prefix}'").run(client, [], ['loaded'])
const meter = createRedisUsageMeter({ client, prefix: ${JSON.stringify(prefix)} })
const limits = { requestsPerMinute: 5, tokensPerDay: 1000 }
const request = (id) => ({ requestId: id, keyId: 'bun', quotaTokens: 600, limits,
  estimatedTokens: 300, estimate: { inputTokens: 100, outputTokens: 200 } })
const first = await meter.reserve(request('a'))
const second = await meter.reserve(request('b'))
const third = await meter.reserve(request('c'))
await meter.settle(first.reservation, { requestId: 'a', keyId: 'bun', usage: { inputTokens: 90,
  outputTokens: 30, cachedInputTokens: 0, cacheWriteInputTokens: 0, cacheWrite1hInputTokens: 0, reasoningTokens: 0, totalTokens: 120 } })
await meter.release(second.reservation)
const summary = await meter.summary('bun', { limits, quotaTokens: 600 })
console.log(JSON.stringify({ fresh, granted: [first.granted, second.granted, third.granted],
  refusal: third.refusal, summary }))
bun.close()
`,
      )
      try {
        const output = execFileSync(runtimeBin('bun'), [program], {
          encoding: 'utf8',
          env: { ...process.env, TEST_REDIS_URL: redisUrl },
        })
        const result = JSON.parse(output)
        expect(result.fresh).toBe(`loaded-${prefix}`)
        // 300 + 300 fill the 600-token quota; the third waits while they are in flight.
        expect(result.granted).toEqual([true, true, false])
        expect(result.refusal).toMatchObject({ name: 'quota', inFlight: true })
        expect(result.summary).toMatchObject({ requests: 1, totalTokens: 120, reservedTokens: 0 })
        expect(result.summary.limits).toEqual([
          expect.objectContaining({ name: 'requestsPerMinute', limit: 5, remaining: 4 }),
          expect.objectContaining({ name: 'tokensPerDay', used: 120, reserved: 0, remaining: 880 }),
          expect.objectContaining({ name: 'quota', used: 120, reserved: 0, remaining: 480 }),
        ])
      } finally {
        await deletePrefix(cleanup, prefix)
      }
    },
  )
})
