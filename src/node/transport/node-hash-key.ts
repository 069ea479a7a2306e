import { createHash } from 'node:crypto'

/**
 * SHA-256 of a key, as lowercase hex, with `node:crypto`: the same hash as `hashKey`, computed
 * synchronously on the calling thread (no promise, no thread-pool hop). `serveGateway` and
 * `toNodeHandler` use it for a gateway whose config names no `hashKey`; pass it as `hashKey` to
 * use it elsewhere on Node.
 */
export function nodeHashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}
