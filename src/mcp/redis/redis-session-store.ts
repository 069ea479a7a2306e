import { isJsonObject, parseJson, stringOf } from '../../internal/json'
import type { McpSession, McpSessionStore } from '../session-store'

/** The one method of a Redis client the session store needs (`RedisScriptClient` has it). */
export type McpRedisClient = {
  eval(script: string, keys: string[], args: string[]): Promise<unknown>
}

/** Options of the Redis session store. */
export type RedisMcpSessionStoreOptions = {
  client: McpRedisClient
  /** The namespace of the keys (default `mg`), shared with the other Redis parts. */
  prefix?: string
  ttlSeconds: number
  /** The clock of the per-key use order, in epoch milliseconds (default `Date.now`). */
  now?: () => number
}

// One hash per session: `meta` (JSON) and `u:<server>` (upstream session ids). Every script
// touches that one key only, so a Redis Cluster serves it from one slot.
const getScript = `local v = redis.call('HGETALL', KEYS[1])
if #v > 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return v`
const putScript = `redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'meta', ARGV[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1`
const setUpstreamScript = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`
const deleteScript = `return redis.call('DEL', KEYS[1])`
// Reads a session's hash and deletes it (a session evicted for its key's bound).
const takeScript = `local v = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
return v`
// A key's sessions: a sorted set of session ids scored by last use (ms). Forgets the members idle
// past the TTL, takes out the least recently used ones past ARGV[4] (returned, for the caller to
// delete), then adds ARGV[3]. Its own key (the key id's slot), apart from the sessions' hashes.
const admitScript = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('ZREM', KEYS[1], ARGV[3])
local max = tonumber(ARGV[4])
local gone = {}
local over = redis.call('ZCARD', KEYS[1]) - max + 1
if max > 0 and over > 0 then
  gone = redis.call('ZRANGE', KEYS[1], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return gone`
const touchScript = `redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`
const forgetScript = `return redis.call('ZREM', KEYS[1], ARGV[1])`

/**
 * MCP sessions in Redis, so that a client's session survives being served by another instance:
 * `<prefix>:mcp:s:{<session id>}`, a hash with the session's JSON and one field per upstream
 * session, expiring after `ttlSeconds` idle (each read renews it). Each key's sessions are a sorted
 * set by last use, `<prefix>:mcp:k:{<key id>}`, for `put`'s per-key bound: two keys in two slots,
 * each script touching one.
 */
export function createRedisMcpSessionStore(options: RedisMcpSessionStoreOptions): McpSessionStore {
  const prefix = options.prefix ?? 'mg'
  const ttl = String(options.ttlSeconds)
  const ttlMs = String(options.ttlSeconds * 1000)
  const now = options.now ?? Date.now
  const keyOf = (id: string) => `${prefix}:mcp:s:{${encodeURIComponent(id)}}`
  const setOf = (keyId: string) => `${prefix}:mcp:k:{${encodeURIComponent(keyId)}}`
  return {
    async get(id) {
      const session = readSession(await options.client.eval(getScript, [keyOf(id)], [ttl]))
      if (session !== undefined) {
        await options.client.eval(
          touchScript,
          [setOf(session.keyId)],
          [String(now()), session.id, ttlMs],
        )
      }
      return session
    },
    async put(session, maxPerKey) {
      const { upstream, ...meta } = session
      const pairs = [...upstream].flatMap(([server, value]) => [`u:${server}`, value])
      const gone = await options.client.eval(
        admitScript,
        [setOf(session.keyId)],
        [String(now()), ttlMs, session.id, String(maxPerKey ?? 0)],
      )
      await options.client.eval(
        putScript,
        [keyOf(session.id)],
        [ttl, JSON.stringify(meta), ...pairs],
      )
      const evicted: McpSession[] = []
      for (const id of Array.isArray(gone) ? gone.map(stringOf) : []) {
        const taken = readSession(await options.client.eval(takeScript, [keyOf(id)], []))
        if (taken !== undefined) evicted.push(taken)
      }
      return evicted
    },
    async setUpstream(id, server, upstreamSessionId) {
      await options.client.eval(setUpstreamScript, [keyOf(id)], [`u:${server}`, upstreamSessionId])
    },
    async delete(id, keyId) {
      await options.client.eval(deleteScript, [keyOf(id)], [])
      if (keyId !== undefined) await options.client.eval(forgetScript, [setOf(keyId)], [id])
    },
  }
}

/** A session from its hash's `HGETALL` reply; undefined when there is none. */
function readSession(reply: unknown): McpSession | undefined {
  if (!Array.isArray(reply) || reply.length === 0) return undefined
  const fields = new Map<string, string>()
  for (let i = 0; i + 1 < reply.length; i += 2)
    fields.set(stringOf(reply[i]), stringOf(reply[i + 1]))
  const meta = parseJson(fields.get('meta') ?? '')
  if (!meta.ok || !isJsonObject(meta.value)) return undefined
  const session = meta.value as unknown as McpSession
  session.upstream = new Map()
  for (const [field, value] of fields) {
    if (field.startsWith('u:')) session.upstream.set(field.slice(2), value)
  }
  return session
}
