import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { createRedisUsageMeter } from '../../src/redis/index'
import {
  connectRedis,
  deletePrefix,
  redisUrl,
  scriptClient,
  type TestRedis,
} from '../helpers/redis'
import { serveCli, writeConfig } from '../helpers/cli'

const key = 'sk-crash-test-0123456789abcdefABCDEF'
const leaseMs = 1500
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** The same gateway config for the child and for the in-process instance. */
function gatewayConfig(prefix: string) {
  return {
    groups: [
      {
        id: 'slow',
        protocol: 'openai' as const,
        models: ['slow-echo'],
        // One word a second: a stream stays in flight for as long as the test needs.
        upstreams: [{ provider: 'mock' as const, chunkDelayMs: 1000 }],
      },
    ],
    keys: [{ key, id: 'crash', limits: { concurrency: 2, tokensPerDay: 1_000_000 } }],
    state: { redis: '${CRASH_TEST_REDIS_URL}', prefix, leaseMs },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('an instance killed with reservations in flight', () => {
  it('holds their capacity while it lives, and frees it when their leases expire after SIGKILL', async () => {
    const redis: TestRedis = await connectRedis()
    // A prefix the config accepts (lowercase, digits, "_"), this test's alone.
    const prefix = `crash_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
    cleanups.push(async () => {
      await deletePrefix(redis, prefix)
      redis.destroy()
    })
    const config = gatewayConfig(prefix)
    const cli = await serveCli(['--config', writeConfig(config), '--port', '0'], {
      CRASH_TEST_REDIS_URL: redisUrl,
    })
    cleanups.push(async () => void (await cli.stop('SIGKILL')))
    const childUrl = cli.url

    // The surviving instance: in this process, same Redis, same prefix.
    const { state: _, ...code } = config
    const survivor = createGateway({
      ...code,
      usageMeter: createRedisUsageMeter({ client: scriptClient(redis), prefix, leaseMs }),
    })
    const ask = () =>
      new OpenAI({
        apiKey: key,
        baseURL: 'http://survivor.test/v1',
        maxRetries: 0,
        fetch: async (input, init) => survivor(new Request(input, init)),
      }).chat.completions
        .create({ model: 'slow-echo', messages: [{ role: 'user', content: 'hi' }] })
        .then(
          () => 'admitted',
          (error: { code?: string }) => error.code ?? 'failed',
        )

    // Two long streams through the child: both concurrency slots are its.
    const words = Array.from({ length: 30 }, (_, index) => `w${index}`).join(' ')
    const child = new OpenAI({ apiKey: key, baseURL: `${childUrl}/v1`, maxRetries: 0 })
    const streams = await Promise.all(
      [1, 2].map(() =>
        child.chat.completions.create({
          model: 'slow-echo',
          messages: [{ role: 'user', content: words }],
          stream: true,
        }),
      ),
    )
    const readers = streams.map((stream) => stream[Symbol.asyncIterator]())
    for (const reader of readers) await reader.next()
    expect(await ask()).toBe('rate_limit_exceeded')
    // Alive past two leases: the child renews them every third of a lease.
    await sleep(2 * leaseMs + 200)
    expect(await ask()).toBe('rate_limit_exceeded')

    await cli.stop('SIGKILL')
    const killedAt = performance.now()
    expect(await ask()).toBe('rate_limit_exceeded')
    let answer = 'rate_limit_exceeded'
    while (answer === 'rate_limit_exceeded' && performance.now() - killedAt < 10_000) {
      await sleep(100)
      answer = await ask()
    }
    const freedAfter = performance.now() - killedAt
    expect(answer).toBe('admitted')
    // Freed when the last renewal's lease ran out: at most one lease after the kill.
    expect(freedAfter).toBeLessThan(leaseMs + 2500)
    const usage = await survivor(
      new Request('http://survivor.test/v1/usage', { headers: { authorization: `Bearer ${key}` } }),
    )
    const body = (await usage.json()) as Record<string, any>
    // Only the survivor's request counted; the killed streams hold nothing any more.
    expect(body['limits']['tokensPerDay']).toMatchObject({ reserved: 0 })
    expect(body['limits']['concurrency']).toMatchObject({ limit: 2, remaining: 2 })
    expect(body['usage']['requests']).toBe(1)
  })
})
