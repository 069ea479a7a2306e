import { GatewayError } from '../../errors'
import type { CredentialCache } from './credential-cache'

/**
 * Failures already logged. A cache answers a failed fetch from memory for a second
 * (`failureHoldMs`), with the same error object, to every call in that time: one line per failed
 * fetch, not one per call.
 */
const logged = new WeakSet<object>()

/**
 * The credential a cloud upstream signs with, from its cache. A failure to obtain it (a token
 * endpoint down, a callback that threw, a metadata server that is not there) fails the call as
 * the upstream's refusal of the gateway's credentials — a 502 that failover treats as a refused
 * key — and never sends the call without one. The client is told only that: what went wrong
 * names tenants, accounts, files and hosts, so it stays in the error's `cause` and goes to the
 * gateway's log (`console.error`), once per failed fetch, for the operator. The token sources'
 * messages never quote a secret (`readTokenAnswer`'s callers keep only error names and codes).
 */
export async function credentialFor<T>(
  cache: CredentialCache<T>,
  cloud: string,
  upstreamId: string,
): Promise<T> {
  try {
    return await cache.get()
  } catch (error) {
    if (typeof error === 'object' && error !== null && !logged.has(error)) {
      logged.add(error)
      console.error(
        `[model-gateway] upstream ${upstreamId} has no ${cloud} credentials: ${reasons(error)}`,
      )
    }
    throw new GatewayError(
      'upstream_error',
      `The gateway could not obtain its ${cloud} credentials for this upstream; the call was not sent.`,
      { status: 502, upstream: { status: 401 }, cause: error },
    )
  }
}

/** An error's message and its causes' (three deep), without stacks: `outer: inner: innermost.` */
function reasons(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    // A thrown value that is not an Error is not written out: it could be anything a callback holds.
    const text =
      current instanceof Error ? current.message : typeof current === 'string' ? current : ''
    const message = text.replace(/\.$/, '')
    if (message !== '' && !parts.includes(message)) parts.push(message)
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.length === 0 ? 'no reason given.' : `${parts.join(': ')}.`
}
