import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { connectRedis, type RedisConnection } from '../../src/node/index'
import {
  createRedisCircuitStore,
  createRedisResponseStore,
  createRedisUsageMeter,
} from '../../src/redis/index'
import { serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { keySlot } from '../helpers/redis-slots'
import { ask, startCluster, type RedisServers } from '../helpers/redis-servers'
import { burst, clusterConfig, usageOf, type Outcome } from './cluster-traffic'

/**
 * The shared state on a real Redis Cluster (three masters, three replicas, started here on ports
 * 17021–17026 from the machine's redis-server): two CLI instances configured with
 * `state.redis: { cluster: [...] }` share quotas, money budgets, stored Responses and circuits.
 */
let cluster: RedisServers
let instances: ServedCli[] = []
let redis: RedisConnection
const prefix = `cl${process.pid}`

beforeAll(async () => {
  cluster = await startCluster(17021)
  try {
    const path = writeConfig(
      // 2 s: this file is about sharing; the failure policy under the 200 ms default is tested in
      // cluster-failover.test.ts. On a loaded 2-core machine a 400-request burst on two CLIs and
      // six Redis processes still saw replies later than 200 ms of loop-free waiting.
      clusterConfig({ cluster: cluster.urls.slice(0, 2) }, prefix, { redisTimeoutMs: 2000 }),
    )
    instances = await Promise.all([
      serveCli(['--config', path, '--port', '0']),
      serveCli(['--config', path, '--port', '0']),
    ])
    redis = await connectRedis({ cluster: [cluster.urls[2]!] })
  } catch (error) {
    await cluster.stop()
    throw error
  }
}, 60_000)
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop('SIGKILL')))
  await redis?.close()
  await cluster?.stop()
})

/** The cluster's masters and the slot ranges each serves, from `CLUSTER NODES`. */
async function masters(): Promise<{ port: number; ranges: [number, number][] }[]> {
  const nodes = await ask(17021, 'CLUSTER', 'NODES')
  return nodes
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[2]!.includes('master') && !fields[2]!.includes('fail'))
    .map((fields) => ({
      port: Number(/:(\d+)@/.exec(fields[1]!)![1]),
      ranges: fields.slice(8).map((range) => {
        const [from, to] = range.split('-').map(Number)
        return [from!, to ?? from!] as [number, number]
      }),
    }))
}

describe('Redis Cluster: two CLI instances', { timeout: 60_000 }, () => {
  it('start on the cluster and name it', () => {
    for (const instance of instances) {
      expect(instance.output()).toMatch(
        /Redis Redis Cluster \(redis:\/\/127\.0\.0\.1:17021, redis:\/\/127\.0\.0\.1:17022\) answering \(cluster with 3 masters \(every slot served\)\)/,
      )
    }
  })

  it('hold a token quota and a USD budget across instances under a 200-request burst; /v1/usage agrees', async () => {
    const urls = instances.map((instance) => instance.url)
    const [tokens, money] = await Promise.all([
      burst(urls, 'sk-cluster-quota-0123456789abcdef', 200),
      burst(urls, 'sk-cluster-money-0123456789abcdef', 200),
    ])
    for (const outcomes of [tokens, money]) {
      const statuses = new Set(outcomes.map((outcome) => outcome.status))
      // Admitted (200) or refused for the budget (429): never the store's 503.
      expect([...statuses].sort()).toEqual([200, 429])
    }
    const used = (outcomes: Outcome[]) =>
      outcomes.reduce((sum, outcome) => sum + (outcome.tokens ?? 0), 0)
    const largest = (outcomes: Outcome[]) =>
      Math.max(...outcomes.map((outcome) => outcome.tokens ?? 0))
    // Both instances read the same shared totals, equal to what the clients were charged.
    const quota = await Promise.all(
      urls.map((url) => usageOf(url, 'sk-cluster-quota-0123456789abcdef')),
    )
    // (reset_at is computed per answer, to the millisecond: not compared.)
    expect(quota[0].usage).toEqual(quota[1].usage)
    expect(quota[0].limits.tokensPerDay.used).toBe(quota[1].limits.tokensPerDay.used)
    expect(quota[0]!.limits.tokensPerDay.used).toBe(used(tokens))
    // The documented bound: one request's use beyond the budget at most.
    expect(used(tokens)).toBeLessThanOrEqual(3000 + largest(tokens))
    expect(tokens.filter((outcome) => outcome.status === 200).length).toBeGreaterThan(10)
    const spend = await Promise.all(
      urls.map((url) => usageOf(url, 'sk-cluster-money-0123456789abcdef')),
    )
    expect(spend[0].spend).toEqual(spend[1].spend)
    const cost = spend[0]!.spend.day_usd as number
    const perRequest = cost / money.filter((outcome) => outcome.status === 200).length
    expect(cost).toBeLessThanOrEqual(0.05 + perRequest * 1.5)
    expect(cost).toBeGreaterThan(0)
  })

  it('resolve a Responses previous_response_id made on the other instance', async () => {
    const sdk = (url: string) =>
      new OpenAI({
        apiKey: 'sk-cluster-plain-0123456789abcdef',
        baseURL: `${url}/v1`,
        maxRetries: 0,
      })
    const turn1 = await sdk(instances[0]!.url).responses.create({
      model: 'demo-echo',
      input: 'Hello?',
    })
    const turn2 = await sdk(instances[1]!.url).responses.create({
      model: 'demo-echo',
      input: 'Again?',
      previous_response_id: turn1.id,
    })
    expect(turn2.output_text).toContain('Again?')
    expect((await sdk(instances[1]!.url).responses.retrieve(turn1.id)).output_text).toBe(
      turn1.output_text,
    )
  })
})

describe('Redis Cluster: the stores over connectRedis', { timeout: 60_000 }, () => {
  it('share an open circuit between instances', async () => {
    const quiet = { warn: () => undefined, error: () => undefined }
    const [one, two] = [0, 1].map(() =>
      createRedisCircuitStore({ client: redis.client, prefix, logger: quiet, syncIntervalMs: 50 }),
    )
    try {
      const now = Date.now()
      one!.open('g/u', 60_000, now)
      await vi.waitFor(
        async () => {
          await two!.sync?.()
          expect(two!.openUntil('g/u', Date.now())).toBeGreaterThan(now + 50_000)
        },
        { timeout: 10_000, interval: 100 },
      )
    } finally {
      await one!.close?.()
      await two!.close?.()
    }
  })

  it('spread hundreds of keys over every master, the meter and the Responses store alike', async () => {
    const meter = createRedisUsageMeter({ client: redis.client, prefix, cluster: redis.cluster })
    const responses = createRedisResponseStore({ client: redis.client, prefix })
    const ids = Array.from({ length: 300 }, (_, index) => `spread-${index}`)
    await Promise.all(
      ids.map(async (keyId) => {
        const result = await meter.reserve({
          requestId: `r-${keyId}`,
          keyId,
          quotaTokens: 10_000,
          limits: { requestsPerMinute: 100 },
          estimatedTokens: 10,
        })
        expect(result.granted).toBe(true)
        if (result.granted) {
          await meter.settle(result.reservation, {
            usage: { inputTokens: 4, outputTokens: 6, cachedInputTokens: 0, totalTokens: 10 },
          } as never)
        }
      }),
    )
    const slots = ids.map((keyId) => keySlot(`{k:${keyId}}`))
    const owners = await masters()
    expect(owners).toHaveLength(3)
    for (const master of owners) {
      const served = slots.filter((slot) =>
        master.ranges.some(([from, to]) => slot >= from && slot <= to),
      )
      expect(served.length, `keys on the master at ${master.port}`).toBeGreaterThan(30)
      // The master holds those keys' counters itself.
      const found = await ask(
        master.port,
        'EVAL',
        `return #redis.call('KEYS', ARGV[1])`,
        '0',
        `${prefix}:usage:*`,
      )
      expect(Number(found)).toBeGreaterThan(0)
    }
    expect(responses).toBeDefined()
    const summaries = await Promise.all(ids.slice(0, 30).map((keyId) => meter.summary(keyId)))
    for (const summary of summaries) expect(summary.totalTokens).toBe(10)
  })

  it('report every slot served: readiness and the topology', async () => {
    await expect(redis.ready()).resolves.toBeUndefined()
    expect(redis.topology()).toEqual({ kind: 'cluster', masters: 3, slotsServed: 16384 })
  })
})
