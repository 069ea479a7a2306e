import { GatewayError } from '../../errors'
import type { CredentialCache } from './credential-cache'

/**
 * The credential a cloud upstream signs with, from its cache. A failure to obtain it (a token
 * endpoint down, a callback that threw, a metadata server that is not there) fails the call as
 * the upstream's refusal of the gateway's credentials — a 502 that failover treats as a refused
 * key — and never sends the call without one. The client is told only that: what went wrong
 * names tenants, accounts, files and hosts, so it stays in the error's `cause`, for the operator.
 */
export async function credentialFor<T>(cache: CredentialCache<T>, cloud: string): Promise<T> {
  try {
    return await cache.get()
  } catch (error) {
    throw new GatewayError(
      'upstream_error',
      `The gateway could not obtain its ${cloud} credentials for this upstream; the call was not sent.`,
      { status: 502, upstream: { status: 401 }, cause: error },
    )
  }
}
