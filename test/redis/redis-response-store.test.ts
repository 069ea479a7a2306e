import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createGateway,
  createMockProvider,
  type ResponseStore,
  type UpstreamProvider,
} from '../../src/index'
import { createRedisResponseStore, type RedisScriptClient } from '../../src/redis/index'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { createGatewayWithState } from '../../src/node/index'
import {
  connectRedis,
  deletePrefix,
  redisUrl,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'

let redis: TestRedis
const prefix = uniquePrefix('responses')
beforeAll(async () => {
  redis = await connectRedis()
})
afterAll(async () => {
  await deletePrefix(redis, prefix)
  redis.destroy()
})

const record = (keyId: string, id: string) => ({
  keyId,
  response: {
    id,
    object: 'response',
    output: [
      { id: `${id}_msg`, type: 'message', content: [{ type: 'output_text', text: 'Paris' }] },
      { id: `${id}_rs`, type: 'reasoning', summary: [], encrypted_content: 'gwr1.x' },
    ],
  },
  input: [{ type: 'message', role: 'user', content: 'Capital of France?' }],
})

/** An upstream that records the bodies it gets and answers as the mock does. */
function recordingUpstream(bodies: string[]): UpstreamProvider {
  const mock = createMockProvider({ id: 'mock', protocol: 'anthropic' })
  return {
    id: 'recording',
    protocol: 'anthropic',
    send: (call) => {
      bodies.push(call.body)
      return mock.send(call)
    },
  }
}

function instance(store: ResponseStore, bodies: string[]) {
  const gateway = createGateway({
    groups: [
      {
        id: 'a',
        protocol: 'anthropic',
        models: ['claude'],
        upstreams: [recordingUpstream(bodies)],
      },
    ],
    keys: [{ key: keys.main }],
    responseStore: store,
  })
  return new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(gateway),
    maxRetries: 0,
  })
}

describe('the Redis response store', () => {
  it('keeps responses and their items per key, with a lifetime', async () => {
    const store = createRedisResponseStore({ client: scriptClient(redis), prefix, ttlSeconds: 120 })
    await store.put(record('key_a', 'resp_1'))
    expect(await store.get('key_a', 'resp_1')).toEqual(record('key_a', 'resp_1'))
    expect(await store.get('key_b', 'resp_1')).toBeUndefined()
    const items = await store.items('key_a', ['resp_1_rs', 'resp_1_msg', 'nope'])
    expect([...items.keys()]).toEqual(['resp_1_rs', 'resp_1_msg'])
    expect(items.get('resp_1_rs')).toMatchObject({ encrypted_content: 'gwr1.x' })
    expect((await store.items('key_b', ['resp_1_rs'])).size).toBe(0)
    const stored = []
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}:resp:*`, COUNT: 100 }))
      stored.push(...(Array.isArray(batch) ? batch : [batch]))
    expect(stored.sort()).toEqual([
      `${prefix}:resp:{key_a}:i:resp_1_msg`,
      `${prefix}:resp:{key_a}:i:resp_1_rs`,
      `${prefix}:resp:{key_a}:r:resp_1`,
    ])
    for (const key of stored) {
      const ttl = await redis.ttl(key)
      expect(ttl).toBeGreaterThan(100)
      expect(ttl).toBeLessThanOrEqual(120)
    }
  })

  it('lets a second instance continue a conversation the first one stored', async () => {
    const bodies: string[] = []
    const first = instance(
      createRedisResponseStore({ client: scriptClient(redis), prefix }),
      bodies,
    )
    const second = instance(
      createRedisResponseStore({ client: scriptClient(redis), prefix }),
      bodies,
    )
    const turn1 = await first.responses.create({ model: 'claude', input: 'Capital of France?' })
    const turn2 = await second.responses.create({
      model: 'claude',
      input: 'And of Italy?',
      previous_response_id: turn1.id,
    })
    expect(turn2.status).toBe('completed')
    expect(JSON.parse(bodies[1]!)['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'You said: Capital of France?' }] },
      { role: 'user', content: [{ type: 'text', text: 'And of Italy?' }] },
    ])
    expect((await second.responses.retrieve(turn1.id)).output_text).toBe(
      'You said: Capital of France?',
    )
  })

  it('is what state.redis gives createGatewayWithState, shared by its instances', async () => {
    const statePrefix = `rs${process.pid}${Math.floor(Math.random() * 1e6)}`
    const config = {
      groups: [
        {
          id: 'a',
          protocol: 'anthropic' as const,
          models: ['claude'],
          upstreams: [{ provider: 'mock' as const }],
        },
      ],
      keys: [{ key: keys.main }],
      state: { redis: redisUrl, prefix: statePrefix },
    }
    const one = await createGatewayWithState(config)
    const two = await createGatewayWithState(config)
    try {
      const sdk = (gateway: typeof one) =>
        new OpenAI({
          apiKey: keys.main,
          baseURL: `${gatewayUrl}/v1`,
          fetch: fetchThrough(gateway),
          maxRetries: 0,
        })
      const turn1 = await sdk(one).responses.create({ model: 'claude', input: 'Hello?' })
      const turn2 = await sdk(two).responses.create({
        model: 'claude',
        input: 'Again?',
        previous_response_id: turn1.id,
      })
      expect(turn2.output_text).toBe('You said: Again?')
      expect((await sdk(two).responses.retrieve(turn1.id)).output_text).toBe('You said: Hello?')
    } finally {
      await one.close()
      await two.close()
      await deletePrefix(redis, statePrefix)
    }
  })

  it('answers 503 when Redis does not answer, and still answers a request it could not store', async () => {
    const stalled: RedisScriptClient = {
      eval: () => new Promise(() => undefined),
      evalsha: () => new Promise(() => undefined),
    }
    const client = instance(
      createRedisResponseStore({ client: stalled, prefix, timeoutMs: 50 }),
      [],
    )
    const original = console.error
    console.error = () => undefined
    try {
      expect((await client.responses.create({ model: 'claude', input: 'hi' })).output_text).toBe(
        'You said: hi',
      )
    } finally {
      console.error = original
    }
    const error = await client.responses
      .create({ model: 'claude', input: 'x', previous_response_id: 'resp_any' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 503, code: 'server_is_overloaded' })
  })
})
