import { GatewayError } from '../errors'
import type { KeyRecord, KeyStore } from './key-store'

/**
 * Resolves the caller's key to its record, or throws a 401 `GatewayError`. The messages say what
 * is wrong without echoing the key.
 */
export async function authenticate(
  secret: string | undefined,
  keyStore: KeyStore,
  now: () => number,
): Promise<KeyRecord> {
  if (secret === undefined) {
    throw new GatewayError(
      'authentication',
      'Missing API key. Send it as `Authorization: Bearer sk-…`, `x-api-key` or `x-goog-api-key`.',
    )
  }
  if (!secret.startsWith('sk-')) {
    throw new GatewayError('authentication', 'Malformed API key: keys start with `sk-`.')
  }
  const record = await keyStore.lookup(secret)
  if (record === undefined) throw new GatewayError('authentication', 'Invalid API key.')
  if (record.disabled === true)
    throw new GatewayError('authentication', 'This API key is disabled.')
  if (record.expiresAt !== undefined && record.expiresAt.getTime() <= now()) {
    throw new GatewayError('authentication', 'This API key has expired.')
  }
  return record
}
