import type { RedisScript, RedisScriptClient } from '../../src/redis/index'
import {
  createRedisCircuitStore,
  createRedisResponseStore,
  createRedisUsageMeter,
} from '../../src/redis/index'
import { openingsScript } from '../../src/redis/redis-circuit-store'
import { responseStoreScripts } from '../../src/redis/redis-response-store'
import { usageScripts } from '../../src/redis/lua/usage-scripts'
import { createRedisResponseCache } from '../../src/cache/redis-response-cache'
import { createRedisMcpSessionStore } from '../../src/mcp/redis/redis-session-store'

/**
 * Every Redis store's scripts and the calls that run them with every key shape they use, for
 * `one-slot.test.ts`: each call must keep all of its keys in one Cluster hash slot, and every
 * listed script must be run at least once. A new store (the response cache, MCP sessions) adds
 * one entry here: its scripts, and an `exercise` that drives the store through the client it is
 * given with each key shape (ids with braces, colons, `%`, long and empty-ish ones).
 */
export type SlotShape = {
  store: string
  scripts: readonly RedisScript[]
  exercise(client: RedisScriptClient, prefix: string): Promise<void>
}

/** Ids chosen to break a naive hash tag: braces, the escape, separators. */
export const awkwardIds = ['plain', 'has{brace}', 'has}close', '%25', 'a:b:c', 'x'.repeat(200)]

const usage = { inputTokens: 4, outputTokens: 6, cachedInputTokens: 0, totalTokens: 10 }

export const slotShapes: SlotShape[] = [
  {
    store: 'usage meter: a key, its end user, team and organisation',
    scripts: Object.values(usageScripts),
    async exercise(client, prefix) {
      const meter = createRedisUsageMeter({
        client,
        prefix,
        cluster: true,
        // A budget missing from Redis asks to be seeded: the seed script runs too.
        reseed: async () => ({ spentTokens: 0, spentNanoUsd: 0 }) as never,
      })
      for (const id of awkwardIds) {
        const result = await meter.reserve({
          requestId: `r-${id}`,
          keyId: `key-${id}`,
          quotaTokens: 1000,
          limits: { requestsPerMinute: 10, tokensPerDay: 1000 },
          estimatedTokens: 10,
          subjects: [
            { kind: 'end-user', id: `user-${id}`, limits: { tokensPerDay: 100 } },
            { kind: 'team', id: `team-${id}`, limits: { tokensPerDay: 500 } },
            { kind: 'organisation', id: `org-${id}`, limits: { tokensPerDay: 5000 } },
          ],
        } as never)
        if (!result.granted) throw new Error(`refused: ${JSON.stringify(result)}`)
        await meter.extend?.(result.reservation)
        await meter.settle(result.reservation, { usage } as never)
        await meter.release(result.reservation)
        await meter.summary(`key-${id}`, { limits: { tokensPerDay: 1000 } } as never)
      }
    },
  },
  {
    store: 'Responses store: a response and its items, per key',
    scripts: responseStoreScripts,
    async exercise(client, prefix) {
      const store = createRedisResponseStore({ client, prefix })
      for (const id of awkwardIds) {
        const response = { id: `resp_${id}`, output: [{ id: `msg_${id}`, type: 'message' }] }
        await store.put({ keyId: `key-${id}`, response, input: [] } as never)
        await store.get(`key-${id}`, response.id)
        await store.items(`key-${id}`, [`msg_${id}`, 'msg_missing'])
      }
    },
  },
  {
    store: 'circuit store: every circuit in one key',
    scripts: [openingsScript],
    async exercise(client, prefix) {
      const quiet = { warn: () => undefined, error: () => undefined }
      const store = createRedisCircuitStore({ client, prefix, logger: quiet, syncIntervalMs: 10 })
      for (const id of awkwardIds) store.open(`group/${id}`, 60_000, Date.now())
      await store.sync?.()
      await store.close?.()
    },
  },
  {
    // Raw EVAL scripts, not `RedisScript`s: the list stays empty and the calls are checked.
    store: 'response cache: one key per entry',
    scripts: [],
    async exercise(client, prefix) {
      const cache = createRedisResponseCache({ client, prefix })
      for (const id of awkwardIds) {
        await cache.set(`entry-${id}`, `{"id":"${id.length}"}`, 60_000)
        if ((await cache.get(`entry-${id}`)) === undefined) throw new Error(`lost entry ${id}`)
      }
    },
  },
  {
    store: 'MCP sessions: one hash per session, one sorted set per key',
    scripts: [],
    async exercise(client, prefix) {
      const store = createRedisMcpSessionStore({ client, prefix, ttlSeconds: 60 })
      for (const id of awkwardIds) {
        await store.put(
          {
            id: `session-${id}`,
            keyId: `key-${id}`,
            protocolVersion: '2025-11-25',
            clientCapabilities: {},
            clientInfo: { name: 'slot-test', version: '1' },
            upstream: new Map([[`server-${id}`, '']]),
          } as never,
          1,
        )
        await store.setUpstream(`session-${id}`, `other-${id}`, `upstream-${id}`)
        if ((await store.get(`session-${id}`)) === undefined) throw new Error(`lost session ${id}`)
        await store.delete(`session-${id}`, `key-${id}`)
      }
    },
  },
]
