import { isJsonObject, parseJson } from '../internal/json'
import type { ResponseStore, StoredJson, StoredResponse } from '../response-store/response-store'
import type { RedisScriptClient } from './redis-client'
import { defineRedisScript } from './redis-script'
import { withTimeout } from './with-timeout'

/** Options of the Redis response store. */
export type RedisResponseStoreOptions = {
  /** The two-method client the usage meter takes too. */
  client: RedisScriptClient
  /** The namespace of the store's keys (default `mg`), shared with the other Redis parts. */
  prefix?: string
  /** How long a stored response lives, in seconds (default 86400: one day). */
  ttlSeconds?: number
  /** Longest a Redis call may take before it fails (default 2000 ms: a response can be large). */
  timeoutMs?: number
}

/** Writes a response and one key per output item, all with the same lifetime, in one step. */
const putScript = defineRedisScript(`
local ttl = tonumber(ARGV[1])
redis.call('SET', KEYS[1], ARGV[2], 'EX', ttl)
for index = 2, #KEYS do
  redis.call('SET', KEYS[index], ARGV[index + 1], 'EX', ttl)
end
return #KEYS
`)

/** Reads one response. */
const getScript = defineRedisScript(`return redis.call('GET', KEYS[1])`)

/** Reads several items: one `MGET`, `false` for the missing ones. */
const itemsScript = defineRedisScript(`return redis.call('MGET', unpack(KEYS))`)

/**
 * A response store shared by every gateway instance through Redis, so that a client's next turn
 * may reach any instance: `previous_response_id`, `item_reference` and `GET /v1/responses/{id}`
 * see what any instance stored. Each response is one JSON value, and each of its output items is
 * another (what `item_reference` reads with one `MGET`), under `<prefix>:resp:{<key id>}:…` — the
 * hash tag keeps a key's responses in one Cluster slot — and all expire together after `ttlSeconds`.
 *
 * @example
 * import { createRedisResponseStore } from 'model-gateway/redis'
 * createGateway({ ...config, responseStore: createRedisResponseStore({ client }) })
 */
export function createRedisResponseStore(options: RedisResponseStoreOptions): ResponseStore {
  const prefix = options.prefix ?? 'mg'
  const ttl = String(options.ttlSeconds ?? 86_400)
  const timeoutMs = options.timeoutMs ?? 2000
  const run = (script: typeof getScript, keys: string[], args: string[]) =>
    withTimeout(script.run(options.client, keys, args), timeoutMs)
  // `{` and `}` would end the hash tag early: key ids are escaped so the tag is the whole id.
  const tag = (keyId: string) => `{${encodeURIComponent(keyId)}}`
  const responseKey = (keyId: string, id: string) => `${prefix}:resp:${tag(keyId)}:r:${id}`
  const itemKey = (keyId: string, id: string) => `${prefix}:resp:${tag(keyId)}:i:${id}`
  return {
    async put(record) {
      const items = record.response.output.filter(
        (item): item is StoredJson & { id: string } => typeof item['id'] === 'string',
      )
      await run(
        putScript,
        [
          responseKey(record.keyId, record.response.id),
          ...items.map((item) => itemKey(record.keyId, item.id)),
        ],
        [ttl, JSON.stringify(record), ...items.map((item) => JSON.stringify(item))],
      )
    },
    async get(keyId, responseId) {
      const text = await run(getScript, [responseKey(keyId, responseId)], [])
      const record = typeof text === 'string' ? parse(text) : undefined
      return record as StoredResponse | undefined
    },
    async items(keyId, itemIds) {
      const found = new Map<string, StoredJson>()
      if (itemIds.length === 0) return found
      const values = await run(
        itemsScript,
        itemIds.map((id) => itemKey(keyId, id)),
        [],
      )
      ;(Array.isArray(values) ? values : []).forEach((value, index) => {
        const item = typeof value === 'string' ? parse(value) : undefined
        if (item !== undefined) found.set(itemIds[index]!, item)
      })
      return found
    },
  }
}

/** A stored JSON object, or `undefined` for anything else (a value someone else wrote there). */
function parse(text: string): StoredJson | undefined {
  const parsed = parseJson(text)
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : undefined
}

/** The Responses store's scripts, for the one-slot test (`test/redis/one-slot.test.ts`). */
export const responseStoreScripts = [putScript, getScript, itemsScript]
