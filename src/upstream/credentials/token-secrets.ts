import type { CredentialCache } from './credential-cache'

/**
 * The secrets of an upstream that signs with a bearer token from `cache`, for the scrubber: the
 * entry's `fixed` ones (a private key, a refresh token, a client secret) and the token held now.
 * The same array while the token is the same, so the gateway's scrubber is rebuilt only when a
 * token is refreshed; an empty token is no secret and is left out.
 */
export function tokenSecrets(
  cache: CredentialCache<string>,
  fixed: readonly string[],
): () => readonly string[] {
  let token: string | undefined
  let list: readonly string[] = fixed
  return () => {
    const current = cache.peek()
    if (current !== token) {
      token = current
      list = current === undefined || current === '' ? fixed : [...fixed, current]
    }
    return list
  }
}
