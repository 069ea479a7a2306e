import { parseJson } from '../internal/json'
import type { ResponseStore, StoredJson, StoredResponse } from './response-store'

/** Limits of the memory response store. */
export type MemoryResponseStoreOptions = {
  /** The most responses kept (default 1000); the oldest go first. */
  maxResponses?: number
  /** The most JSON text kept, in characters (default 64 Mi); the oldest responses go first. */
  maxBytes?: number
}

/**
 * A response store in process memory, bounded by count and size: the oldest responses are dropped
 * first. Records are kept as JSON text, so nothing a caller does to an object it put or got can
 * change what is stored. Responses do not survive a restart and are not shared between instances
 * (use the Redis store for that).
 *
 * @example
 * createGateway({ ...config, responseStore: createMemoryResponseStore({ maxResponses: 10_000 }) })
 */
export function createMemoryResponseStore(options: MemoryResponseStoreOptions = {}): ResponseStore {
  const maxResponses = options.maxResponses ?? 1000
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024
  /** `keyId NUL responseId` → the record's JSON text, oldest first. */
  const responses = new Map<string, { text: string; itemIds: string[] }>()
  /** `keyId NUL itemId` → `keyId NUL responseId` and the item's output index. */
  const items = new Map<string, { response: string; index: number }>()
  let bytes = 0

  const evictOldest = () => {
    const [oldest, entry] = responses.entries().next().value as [
      string,
      { text: string; itemIds: string[] },
    ]
    responses.delete(oldest)
    bytes -= entry.text.length
    for (const itemId of entry.itemIds)
      if (items.get(itemId)?.response === oldest) items.delete(itemId)
  }

  const read = (key: string): StoredResponse | undefined => {
    const entry = responses.get(key)
    if (entry === undefined) return undefined
    const parsed = parseJson(entry.text)
    return parsed.ok ? (parsed.value as StoredResponse) : undefined
  }

  return {
    put(record) {
      const key = `${record.keyId}\u0000${record.response.id}`
      const text = JSON.stringify(record)
      if (text.length > maxBytes) return
      const previous = responses.get(key)
      if (previous !== undefined) {
        responses.delete(key)
        bytes -= previous.text.length
      }
      const itemIds: string[] = []
      record.response.output.forEach((item, index) => {
        if (typeof item['id'] !== 'string') return
        const itemKey = `${record.keyId}\u0000${item['id']}`
        items.set(itemKey, { response: key, index })
        itemIds.push(itemKey)
      })
      responses.set(key, { text, itemIds })
      bytes += text.length
      while (responses.size > maxResponses || bytes > maxBytes) evictOldest()
    },
    get: (keyId, responseId) => read(`${keyId}\u0000${responseId}`),
    items(keyId, itemIds) {
      const found = new Map<string, StoredJson>()
      const opened = new Map<string, StoredResponse | undefined>()
      for (const id of itemIds) {
        const where = items.get(`${keyId}\u0000${id}`)
        if (where === undefined) continue
        if (!opened.has(where.response)) opened.set(where.response, read(where.response))
        const item = opened.get(where.response)?.response.output[where.index]
        if (item !== undefined) found.set(id, item)
      }
      return found
    },
  }
}
