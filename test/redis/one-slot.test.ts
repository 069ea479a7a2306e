import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connectRedis,
  deletePrefix,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'
import { slotsOf } from '../helpers/redis-slots'
import { slotShapes } from './slot-shapes'

/**
 * Nothing fails with CROSSSLOT at run time: every script of every Redis store, run with every key
 * shape it uses (the list in `slot-shapes.ts`, where a new store adds its entry), keeps all of
 * its keys in one Cluster hash slot. Run against the machine's Redis with a client that refuses a
 * cross-slot call as Redis Cluster does.
 */
let redis: TestRedis
const prefix = uniquePrefix('one-slot')
beforeAll(async () => {
  redis = await connectRedis()
})
afterAll(async () => {
  await deletePrefix(redis, prefix)
  redis.destroy()
})

async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

describe('every Redis script keeps its keys in one hash slot', () => {
  for (const shape of slotShapes) {
    it(shape.store, async () => {
      const inner = scriptClient(redis)
      const calls: { script: string; keys: string[] }[] = []
      const check = (script: string, keys: string[]) => {
        calls.push({ script, keys })
        if (slotsOf(keys).size > 1) {
          throw new Error(
            `CROSSSLOT Keys in request don't hash to the same slot: ${keys.join(' ')}`,
          )
        }
      }
      await shape.exercise(
        {
          eval: async (source, keys, args) => {
            check(await sha1(source), keys)
            return inner.eval(source, keys, args)
          },
          evalsha: async (sha, keys, args) => {
            check(sha, keys)
            return inner.evalsha(sha, keys, args)
          },
        },
        prefix,
      )
      expect(calls.length).toBeGreaterThan(0)
      for (const call of calls)
        expect(slotsOf(call.keys).size, call.keys.join(' ')).toBeLessThanOrEqual(1)
      const run = new Set(calls.map((call) => call.script))
      for (const script of shape.scripts) {
        expect(run.has(await sha1(script.source)), script.source.slice(-200)).toBe(true)
      }
    })
  }
})
