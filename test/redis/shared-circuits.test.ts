import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway, type GatewayHandler } from '../../src/index'
import { createGatewayWithState } from '../../src/node/index'
import { createRedisCircuitStore } from '../../src/redis/index'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'
import { baseUrlOf, healthUpstreams, vendorErrors } from '../helpers/health-upstreams'
import {
  connectRedis,
  deletePrefix,
  redisUrl,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'

/**
 * Two gateway instances sharing open circuits through the machine's Redis (their own prefix):
 * a circuit one opens is skipped by the other.
 */

const upstreams = healthUpstreams()
const server = setupServer(...upstreams.handlers)
let redis: TestRedis
const prefix = uniquePrefix('shared-circuits')
beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' })
  redis = await connectRedis()
})
afterAll(async () => {
  server.close()
  await deletePrefix(redis, prefix)
  redis.destroy()
})

const quiet = { warn: () => undefined, error: () => undefined }
// The circuits these tests open are warning lines: captured and checked, not printed.
const warnings = captureGatewayWarnings()

function instance(
  upstreamIds: ('oa-1' | 'oa-2')[],
  whenAllResting: 'try-soonest' | 'refuse' = 'try-soonest',
) {
  const circuitStore = createRedisCircuitStore({
    client: scriptClient(redis),
    prefix,
    syncIntervalMs: 50,
    logger: quiet,
  })
  const gateway = createGateway({
    groups: [
      {
        id: 'o',
        protocol: 'openai',
        models: [{ name: 'chat', upstreamModel: 'gpt-4o-mini' }],
        circuitBreaker: { whenAllResting },
        upstreams: upstreamIds.map((id) => ({
          id,
          baseUrl: baseUrlOf(id),
          apiKey: `sk-${id}-upstream-key-0000000000000000`,
        })),
      },
    ],
    keys: [{ key: keys.main }],
    circuitStore,
  })
  const client = new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(gateway),
    maxRetries: 0,
  })
  const chat = () =>
    client.chat.completions.create({
      model: 'chat',
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    })
  return { gateway, chat }
}

describe('circuits shared through Redis', () => {
  it('with whenAllResting "refuse", a circuit opened on instance 1 (a 429 with retry-after) is skipped by instance 2: 503 at once with the time left, no upstream call', async () => {
    upstreams.reset()
    const one = instance(['oa-1'], 'refuse')
    const two = instance(['oa-1'], 'refuse')
    upstreams.script('oa-1', () => vendorErrors.openAIRateLimit(60))
    await expect(one.chat()).rejects.toMatchObject({ status: 429 })
    upstreams.script('oa-1', undefined)
    // health() reads the shared openings first.
    // health() reads the shared openings first; instance 2's first pick adopts the shared rest.
    await two.gateway.health()
    const error = await two.chat().catch((thrown: unknown) => thrown)
    const [health] = await two.gateway.health()
    const pair = health!.models![0]!
    expect(pair).toMatchObject({
      model: 'gpt-4o-mini',
      circuit: 'open',
      reason: 'opened by another instance',
    })
    expect(pair.openUntil - Date.now()).toBeGreaterThan(55_000)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503)
    const retryAfter = Number(
      (error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after'),
    )
    expect(retryAfter).toBeGreaterThan(55)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(upstreams.callsTo('oa-1')).toHaveLength(1)
    // Instance 1 opened it, and said so once; instance 2 adopted it without a line of its own.
    expect(warnings.lines).toEqual([
      expect.stringMatching(
        /^\[model-gateway\] upstream o\/oa-1, model "gpt-4o-mini": circuit open for [\d.]+ s \(rate limited or overloaded \(retry-after\), last HTTP 429\)\.$/,
      ),
    ])
    await closeAll(one.gateway, two.gateway)
    await deletePrefix(redis, prefix)
  })

  it('a rest one instance ended by a success (sent while resting) ends on the other too', async () => {
    upstreams.reset()
    const one = instance(['oa-1'])
    const two = instance(['oa-1'], 'refuse')
    upstreams.script('oa-1', () => vendorErrors.openAIRateLimit(60))
    await expect(one.chat()).rejects.toMatchObject({ status: 429 })
    await two.gateway.health()
    // Instance 2 sees the rest and, failing fast, refuses.
    await expect(two.chat()).rejects.toMatchObject({ status: 503 })
    upstreams.script('oa-1', undefined)
    // Instance 1 sends anyway (every candidate rests): the upstream answers, the rest ends.
    expect((await one.chat()).choices[0]!.message.content).toBeTruthy()
    await vi.waitFor(async () => expect((await two.chat()).choices.length).toBe(1), {
      timeout: 5_000,
      interval: 60,
    })
    await closeAll(one.gateway, two.gateway)
    await deletePrefix(redis, prefix)
  })

  it('without being asked, instance 2 learns of the opening within its sync interval and sends the group’s traffic to the other upstream', async () => {
    upstreams.reset()
    const one = instance(['oa-1', 'oa-2'])
    const two = instance(['oa-1', 'oa-2'])
    // Instance 1 meets oa-1's 429: its circuit opens there, and in Redis.
    upstreams.script('oa-1', () => vendorErrors.openAIRateLimit(60))
    for (let tries = 0; upstreams.callsTo('oa-1').length === 0 && tries < 50; tries += 1) {
      await one.chat().catch(() => undefined)
    }
    expect(upstreams.callsTo('oa-1')).toHaveLength(1)
    upstreams.script('oa-1', undefined)
    await vi.waitFor(
      async () => {
        await two.chat()
        const before = upstreams.callsTo('oa-1').length
        for (let index = 0; index < 20; index += 1) await two.chat()
        expect(upstreams.callsTo('oa-1')).toHaveLength(before)
      },
      { timeout: 5_000, interval: 60 },
    )
    await closeAll(one.gateway, two.gateway)
  })

  it('createGatewayWithState (what the CLI runs) shares circuits through state.redis', async () => {
    upstreams.reset()
    const statePrefix = `hc${process.pid}_${crypto.randomUUID().slice(0, 6)}`
    const config = {
      groups: [
        {
          id: 'o',
          protocol: 'openai' as const,
          models: [{ name: 'chat', upstreamModel: 'gpt-4o-mini' }],
          circuitBreaker: { whenAllResting: 'refuse' as const },
          upstreams: [
            { id: 'oa-1', baseUrl: baseUrlOf('oa-1'), apiKey: 'sk-oa-1-upstream-key-0000' },
          ],
        },
      ],
      keys: [{ key: keys.main }],
      state: { redis: redisUrl, prefix: statePrefix },
    }
    const one = await createGatewayWithState(config, { logger: quiet })
    const two = await createGatewayWithState(config, { logger: quiet })
    try {
      expect(one.state.circuitStore).toBeDefined()
      const chat = (gateway: GatewayHandler) =>
        new OpenAI({
          apiKey: keys.main,
          baseURL: `${gatewayUrl}/v1`,
          fetch: fetchThrough(gateway),
          maxRetries: 0,
        }).chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'Hi' }] })
      upstreams.script('oa-1', () => vendorErrors.openAIRateLimit(60))
      await expect(chat(one)).rejects.toMatchObject({ status: 429 })
      upstreams.script('oa-1', undefined)
      await two.health()
      await expect(chat(two)).rejects.toMatchObject({ status: 503 })
      expect((await two.health())[0]!.models![0]).toMatchObject({ circuit: 'open' })
      expect(upstreams.callsTo('oa-1')).toHaveLength(1)
      expect(await redis.exists(`${statePrefix}:circuit:v2:{circuits}`)).toBe(1)
    } finally {
      await closeAll(one, two)
      await deletePrefix(redis, statePrefix)
    }
  })
})

async function closeAll(...gateways: GatewayHandler[]) {
  await Promise.all(gateways.map((gateway) => gateway.close()))
}
