import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisUsageMeter, type RedisScriptClient } from '../../src/redis/index'
import type { MeteredSubject } from '../../src/usage/usage-meter'
import {
  connectRedis,
  deletePrefix,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'
import { slotRecordingClient, slotsOf } from '../helpers/redis-slots'
import { inputUsage, recordOf } from '../usage/meter-contract'
import { describeSubjectsContract, reserveWith } from '../usage/subjects-contract'

let redis: TestRedis
beforeAll(async () => {
  redis = await connectRedis()
})
afterAll(() => redis.destroy())

/** Two meter instances on one prefix, over `client`. */
function twoMeters(name: string, client: () => RedisScriptClient, cluster?: boolean) {
  return async () => {
    const prefix = uniquePrefix(name)
    const make = () => createRedisUsageMeter({ client: client(), prefix, timeoutMs: 2000, cluster })
    return {
      meters: [make(), make()] as const,
      close: async () => void (await deletePrefix(redis, prefix)),
    }
  }
}

describeSubjectsContract(
  'redis, one script',
  twoMeters('subjects', () => scriptClient(redis)),
)
// As on Redis Cluster: a script whose keys span slots is refused, so each slot is its own step.
describeSubjectsContract(
  'redis, one slot per script (cluster)',
  twoMeters(
    'subjects-cluster',
    () => slotRecordingClient(scriptClient(redis), { refuseCrossSlot: true }),
    true,
  ),
)
describeSubjectsContract(
  'redis, cluster found by its CROSSSLOT answer',
  twoMeters('subjects-found', () =>
    slotRecordingClient(scriptClient(redis), { refuseCrossSlot: true }),
  ),
)

describe('redis metered subjects and hash slots', () => {
  const subjects: MeteredSubject[] = [
    { kind: 'end-user', id: 'u{1}:x', limits: { concurrency: 3 } },
    { kind: 'team', id: 'data', limits: { requestsPerMinute: 100 }, quotaTokens: 10_000 },
    { kind: 'organisation', id: 'acme', budgets: [{ usd: 100, per: 'month', alertAt: 0.5 }] },
  ]

  it('keeps every key of every script call in one slot on Cluster, for every subject kind', async () => {
    const prefix = uniquePrefix('slots-subjects')
    const client = slotRecordingClient(scriptClient(redis), { refuseCrossSlot: true })
    const meter = createRedisUsageMeter({ client, prefix, cluster: true, reseed: async () => 0 })
    const result = await reserveWith(meter, 'key{a}%', subjects, { tokensPerDay: 10_000 })
    if (!result.granted) throw new Error('expected a grant')
    await meter.extend!(result.reservation)
    await meter.settle(result.reservation, recordOf(result.reservation, inputUsage(10)))
    const again = await reserveWith(meter, 'key{a}%', subjects)
    if (!again.granted) throw new Error('expected a grant')
    await meter.release(again.reservation)
    for (const subject of subjects) {
      await meter.summary({ ...subject, keyId: 'key{a}%' }, subject)
    }
    // Reserve, seed, extend, settle, release and status calls: each in one slot.
    expect(client.calls.length).toBeGreaterThan(12)
    for (const keys of client.calls) expect(slotsOf(keys).size).toBe(1)
    // The key and its end user share one slot; the team and the organisation have their own.
    const slots = new Set(client.calls.map((keys) => [...slotsOf(keys)][0]))
    expect(slots.size).toBe(3)
    await deletePrefix(redis, prefix)
  })

  it("keeps a key's own keys where they were before subjects, so counters survive the upgrade", async () => {
    const prefix = uniquePrefix('layout')
    const client = slotRecordingClient(scriptClient(redis))
    const meter = createRedisUsageMeter({ client, prefix })
    await reserveWith(meter, 'k{1}', [])
    expect(client.calls[0]![0]).toBe(`${prefix}:usage:v1:{k:k%7B1%7D}:lease`)
    expect(client.calls[0]).toHaveLength(13)
    await reserveWith(meter, 'k{1}', subjects)
    const keys = client.calls[1]!
    expect(keys).toHaveLength(13 * 4)
    expect(keys[0]).toBe(`${prefix}:usage:v1:{k:k%7B1%7D}:lease`)
    expect(keys[13]).toBe(`${prefix}:usage:v1:{k:k%7B1%7D}:u:u%7B1%7D%3Ax:lease`)
    expect(keys[26]).toBe(`${prefix}:usage:v1:{t:data}:lease`)
    expect(keys[39]).toBe(`${prefix}:usage:v1:{o:acme}:lease`)
    await deletePrefix(redis, prefix)
  })

  it('leaves no key without an expiry but totals and lifetime budgets', async () => {
    const prefix = uniquePrefix('ttl-subjects')
    const meter = createRedisUsageMeter({ client: scriptClient(redis), prefix })
    const result = await reserveWith(meter, 'ttl', subjects, { tokensPerDay: 10_000 })
    if (!result.granted) throw new Error('expected a grant')
    await meter.settle(result.reservation, recordOf(result.reservation, inputUsage(10)))
    const lasting: string[] = []
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      for (const key of Array.isArray(batch) ? batch : [batch]) {
        if ((await redis.pTTL(key)) < 0) lasting.push(key.slice(prefix.length))
      }
    }
    expect(lasting.sort()).toEqual(
      [
        ':usage:v1:{k:ttl}:totals',
        ':usage:v1:{k:ttl}:u:u%7B1%7D%3Ax:totals',
        ':usage:v1:{o:acme}:totals',
        ':usage:v1:{t:data}:b:life',
        ':usage:v1:{t:data}:totals',
      ].sort(),
    )
    expect(await deletePrefix(redis, prefix)).toBeGreaterThan(0)
  })
})
