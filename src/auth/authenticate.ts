import { GatewayError } from '../errors'
import type { MaybePromise } from '../internal/maybe-promise'
import type { KeyRecord, KeyStore } from './key-store'

/**
 * Resolves the caller's key to its record, or throws a 401 `GatewayError`. The messages say what
 * is wrong without echoing the key. Synchronous when the store answers synchronously (the config's
 * keys with a synchronous hash), so a request pays no promise for it.
 */
export function authenticate(
  secret: string | undefined,
  keyStore: KeyStore,
  now: () => number,
): MaybePromise<KeyRecord> {
  if (secret === undefined) {
    throw new GatewayError(
      'authentication',
      'Missing API key. Send it as `Authorization: Bearer sk-…`, `x-api-key` or `x-goog-api-key`.',
    )
  }
  if (!secret.startsWith('sk-')) {
    throw new GatewayError('authentication', 'Malformed API key: keys start with `sk-`.')
  }
  const found = keyStore.lookup(secret)
  return isThenable(found)
    ? Promise.resolve(found).then((record) => admitRecord(record, now))
    : admitRecord(found, now)
}

function admitRecord(record: KeyRecord | undefined, now: () => number): KeyRecord {
  if (record === undefined) throw new GatewayError('authentication', 'Invalid API key.')
  // A revoked key is told so: "disabled" sent its holder looking for a switch to turn it back on.
  if (record.revokedAt !== undefined) {
    throw new GatewayError('authentication', 'This API key has been revoked.')
  }
  if (record.disabled === true)
    throw new GatewayError('authentication', 'This API key is disabled.')
  if (record.expiresAt !== undefined && record.expiresAt.getTime() <= now()) {
    throw new GatewayError('authentication', 'This API key has expired.')
  }
  return record
}

function isThenable<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}
