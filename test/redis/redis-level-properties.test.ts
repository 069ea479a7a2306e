import { afterAll, beforeAll } from 'vitest'
import { createRedisUsageMeter } from '../../src/redis/index'
import {
  connectRedis,
  deletePrefix,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'
import { slotRecordingClient } from '../helpers/redis-slots'
import { describeLevelProperties } from '../usage/level-properties'

// The properties of every level on the Redis meter (issue 33: "memory and Redis meters alike"):
// one Lua script over every level's counters, and — as on Redis Cluster, where a script whose
// keys span slots is refused — one script per slot, the earlier slots released when a later one
// refuses. Each run has a prefix of its own; fewer runs than on memory, each op being round trips.
let redis: TestRedis
beforeAll(async () => {
  redis = await connectRedis()
})
afterAll(() => redis.destroy())

const fresh = (name: string, cluster: boolean) => async () => {
  const prefix = uniquePrefix(name)
  const client = cluster
    ? slotRecordingClient(scriptClient(redis), { refuseCrossSlot: true })
    : scriptClient(redis)
  return {
    meter: createRedisUsageMeter({ client, prefix, timeoutMs: 2000, cluster }),
    close: async () => void (await deletePrefix(redis, prefix)),
  }
}

describeLevelProperties('redis, one script', fresh('levels', false), 40)
describeLevelProperties('redis, one slot per script (cluster)', fresh('levels-cluster', true), 40)
