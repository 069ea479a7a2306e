import { authenticate } from '../../auth/authenticate'
import { hashKey } from '../../auth/hash-key'
import { timingSafeEqual } from '../../auth/timing-safe-equal'
import type { GatewayInspection } from '../../gateway-core'
import { isGatewayError } from '../../errors'
import type { ConsoleUser } from '../options'
import { ConsoleError } from './answers'

/** A sign-in token, hashed: what `adminTokens` and `viewerTokens` become at start. */
type HashedToken = { hash: string; role: 'admin' | 'viewer' }

/**
 * Hashes the configured tokens (SHA-256, as keys are): the plaintext is dropped at once. A token
 * given as `sha256:<hex>` is kept as that hash.
 */
export async function hashTokens(
  adminTokens: readonly string[],
  viewerTokens: readonly string[],
): Promise<HashedToken[]> {
  const hashOf = async (token: string) =>
    token.startsWith('sha256:') ? token.slice(7).toLowerCase() : await hashKey(token)
  return Promise.all([
    ...adminTokens.map(async (token) => ({ hash: await hashOf(token), role: 'admin' as const })),
    ...viewerTokens.map(async (token) => ({ hash: await hashOf(token), role: 'viewer' as const })),
  ])
}

/**
 * Who a secret signs in as: an admin or viewer token (every token is compared, in constant
 * time, whichever matches), else, with `keyLogin`, an API key the gateway accepts (its own key
 * store: config keys and database keys alike). `undefined` for anything else.
 */
export async function signInWith(
  secret: string,
  tokens: readonly HashedToken[],
  keyLogin: boolean,
  gateway: GatewayInspection,
): Promise<ConsoleUser | undefined> {
  const hash = await hashKey(secret)
  let role: 'admin' | 'viewer' | undefined
  for (const token of tokens) if (timingSafeEqual(token.hash, hash)) role ??= token.role
  if (role !== undefined) return { role, name: role === 'admin' ? 'Admin' : 'Viewer' }
  if (!keyLogin || !secret.startsWith('sk-')) return undefined
  const runtime = gateway.runtime
  try {
    const record = await authenticate(secret, await runtime.keyStore(), runtime.now)
    return { role: 'key', keyId: record.id, name: record.name ?? record.id }
  } catch (error) {
    // A key the gateway refuses (unknown, revoked, expired) is a failed sign-in; a key store that
    // does not answer is not the holder's fault, and no attempt is counted against them.
    if (isGatewayError(error) && error.code === 'authentication') return undefined
    throw new ConsoleError(503, 'Keys cannot be checked right now; try again shortly.')
  }
}
