import type { MaybePromise } from '../internal/maybe-promise'

/** A JSON object as stored: a Response object or one of its items. */
export type StoredJson = Record<string, unknown>

/** One stored response: what `previous_response_id`, `item_reference` and `GET` read back. */
export type StoredResponse = {
  /** The key that created it: only that key may read it back. */
  keyId: string
  /** The Response object as answered, with every reasoning item's `encrypted_content`. */
  response: StoredJson & { id: string; output: StoredJson[] }
  /** The request's input items, with its own `previous_response_id` and references resolved. */
  input: StoredJson[]
}

/**
 * Where the gateway keeps Responses created with `store: true` (the API's default), so that a
 * client's next turn may name them by `previous_response_id` or refer to their items by
 * `item_reference` — the AI SDK does so by default — and `GET /v1/responses/{id}` can answer.
 * Every read names the key: a response is only ever visible to the key that created it.
 *
 * `createMemoryResponseStore` is the default (one process, bounded); `model-gateway/redis` has
 * one shared between instances. Implement it to keep responses elsewhere.
 */
export interface ResponseStore {
  put(record: StoredResponse): MaybePromise<void>
  /** The response with this id, created by this key. */
  get(keyId: string, responseId: string): MaybePromise<StoredResponse | undefined>
  /** Output items of this key's stored responses, by item id; ids not found are absent. */
  items(keyId: string, itemIds: readonly string[]): MaybePromise<ReadonlyMap<string, StoredJson>>
}
