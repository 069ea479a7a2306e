import { spawn, type ChildProcess } from 'node:child_process'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter, type RequestEvent } from '../../src/index'
import { createRedisResponseCache } from '../../src/redis/index'
import { keys } from '../helpers/gateway'
import { scriptClient, type TestRedis } from '../helpers/redis'

// A Redis of the test's own, on a port of its own, so that it can be killed mid-traffic.
const port = 16507
let server: ChildProcess | undefined
let client: TestRedis
const prefix = `mg-cache-test-${process.pid}`

async function startRedis(): Promise<void> {
  server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  )
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = createClient({
      url: `redis://127.0.0.1:${port}`,
      socket: { reconnectStrategy: false },
    })
    probe.on('error', () => undefined)
    try {
      await probe.connect()
      await probe.quit()
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error('redis-server did not start')
}

beforeAll(async () => {
  await startRedis()
  client = createClient({
    url: `redis://127.0.0.1:${port}`,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: () => 100 },
  }) as TestRedis
  client.on('error', () => undefined)
  await client.connect()
}, 20_000)

afterAll(async () => {
  await client.quit().catch(() => undefined)
  server?.kill('SIGKILL')
})

/** A gateway instance sharing the cache through Redis. */
function instance(events: RequestEvent[], ttlSeconds = 60) {
  return createGateway({
    groups: [
      {
        id: 'g',
        protocol: 'openai',
        models: ['gpt-mock'],
        upstreams: [{ provider: 'mock' }],
        cache: { ttlSeconds },
      },
    ],
    keys: [{ key: keys.main }],
    usageMeter: createMemoryUsageMeter(),
    responseCache: createRedisResponseCache({ client: scriptClient(client), prefix }),
    onEvent: (event) => void events.push(event),
  })
}

async function ask(gateway: ReturnType<typeof instance>, content: string, stream = false) {
  const response = await gateway(
    new Request('http://gateway.test/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content }], stream }),
    }),
  )
  const text = await response.text()
  // The write goes through `waitUntil`: give it its round trip.
  await new Promise((resolve) => setTimeout(resolve, 20))
  return { status: response.status, cache: response.headers.get('x-gateway-cache'), text }
}

describe('the response cache on Redis, two instances', () => {
  it('a hit across instances, JSON and stream', async () => {
    const events: RequestEvent[] = []
    const one = instance(events)
    const two = instance(events)
    expect((await ask(one, 'shared')).cache).toBe('miss')
    const hit = await ask(two, 'shared')
    expect(hit).toMatchObject({ status: 200, cache: 'hit' })
    const streamed = await ask(two, 'shared', true)
    expect(streamed.cache).toBe('hit')
    expect(streamed.text.match(/data: \[DONE\]/g)).toHaveLength(1)
    const keysInRedis = await client.keys(`${prefix}:cache:*`)
    expect(keysInRedis.length).toBeGreaterThan(0)
    expect(keysInRedis.every((key) => /^[^:]+:cache:[0-9a-f]{64}$/.test(key))).toBe(true)
    await one.close()
    await two.close()
  })

  it('entries expire with their TTL, kept by Redis', async () => {
    const events: RequestEvent[] = []
    const one = instance(events, 1)
    expect((await ask(one, 'short-lived')).cache).toBe('miss')
    const [key] = await client.keys(`${prefix}:cache:*`).then(async (all) => {
      const ttls = await Promise.all(
        all.map(async (name) => [name, await client.pTTL(name)] as const),
      )
      return ttls.filter(([, ttl]) => ttl > 0 && ttl <= 1000).map(([name]) => name)
    })
    expect(key).toBeDefined()
    expect((await ask(one, 'short-lived')).cache).toBe('hit')
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await ask(one, 'short-lived')).cache).toBe('miss')
    await one.close()
  })

  it('Redis killed mid-traffic: misses, never a 5xx; back, it hits again', async () => {
    const events: RequestEvent[] = []
    const one = instance(events)
    const two = instance(events)
    await ask(one, 'outage')
    expect((await ask(two, 'outage')).cache).toBe('hit')
    server!.kill('SIGKILL')
    await new Promise((resolve) => setTimeout(resolve, 100))
    const during = []
    for (let index = 0; index < 10; index++) {
      during.push(
        await ask(index % 2 === 0 ? one : two, index % 3 === 0 ? 'outage' : `outage ${index}`),
      )
    }
    expect(during.every((answer) => answer.status === 200)).toBe(true)
    expect(during.every((answer) => answer.cache === 'miss')).toBe(true)
    await startRedis()
    // The client reconnects on its own; the cache was lost with the process.
    for (let attempt = 0; attempt < 50 && !client.isReady; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect((await ask(one, 'after')).cache).toBe('miss')
    expect((await ask(two, 'after')).cache).toBe('hit')
    await one.close()
    await two.close()
  }, 30_000)
})
