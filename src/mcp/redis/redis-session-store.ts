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

/**
 * MCP sessions in Redis, so that a client's session survives being served by another instance:
 * `<prefix>:mcp:s:{<session id>}`, a hash with the session's JSON and one field per upstream
 * session, expiring after `ttlSeconds` idle (each read renews it).
 */
export function createRedisMcpSessionStore(options: RedisMcpSessionStoreOptions): McpSessionStore {
  const prefix = options.prefix ?? 'mg'
  const ttl = String(options.ttlSeconds)
  const keyOf = (id: string) => `${prefix}:mcp:s:{${encodeURIComponent(id)}}`
  return {
    async get(id) {
      const reply = await options.client.eval(getScript, [keyOf(id)], [ttl])
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
    },
    async put(session) {
      const { upstream, ...meta } = session
      const pairs = [...upstream].flatMap(([server, value]) => [`u:${server}`, value])
      await options.client.eval(
        putScript,
        [keyOf(session.id)],
        [ttl, JSON.stringify(meta), ...pairs],
      )
    },
    async setUpstream(id, server, upstreamSessionId) {
      await options.client.eval(setUpstreamScript, [keyOf(id)], [`u:${server}`, upstreamSessionId])
    },
    async delete(id) {
      await options.client.eval(deleteScript, [keyOf(id)], [])
    },
  }
}
