import { cookieHeader, readCookie, type CookieScope } from '../server/cookies'
import { ConsoleError, json } from '../server/answers'
import { baseAddress, mcpAddress, type ConsoleDeps } from '../server/context'
import { randomId, type Session } from '../server/session'
import type { ConsoleUser } from '../options'

/** The session cookie, and the CSRF seed cookie of users the `authorize` hook signs in. */
export const sessionCookie = 'mg_console'
export const csrfCookie = 'mg_console_csrf'

/** How people may sign in, for the page's sign-in form. */
export type SignInWays = { tokens: boolean; keyLogin: boolean; external: boolean }

/**
 * What `GET <mount>/api/session` answers a signed-in user: who they are, the CSRF token their
 * changes carry (`x-csrf-token`), the base address and what this console can do.
 */
export async function sessionInfo(
  deps: ConsoleDeps,
  url: URL,
  user: ConsoleUser,
  csrfSeed: string,
  ways: SignInWays,
) {
  return {
    user: {
      role: user.role,
      name: user.name ?? user.role,
      ...(user.role === 'key' ? { keyId: user.keyId } : {}),
    },
    csrf: await deps.signer.csrfToken(csrfSeed),
    baseUrl: baseAddress(deps, url),
    /** The MCP endpoint (`null`: the gateway has no `mcp` section): the guide's MCP snippets. */
    mcpUrl: mcpAddress(deps, url) ?? null,
    keyStore: deps.keys?.kind ?? null,
    signOut: !ways.external || ways.tokens || ways.keyLogin,
  }
}

/**
 * The CSRF seed of a request: the session's id for a cookie session; for a user of the
 * `authorize` hook, a random value kept in its own HttpOnly cookie (set here when missing).
 */
export function csrfSeedOf(
  request: Request,
  session: Session | undefined,
  scope: CookieScope,
  setCookies: string[],
): string {
  if (session !== undefined) return session.id
  const seed = readCookie(request.headers.get('cookie'), csrfCookie)
  if (seed !== undefined && /^[A-Za-z0-9_-]{22}$/.test(seed)) return seed
  const fresh = randomId()
  setCookies.push(cookieHeader(csrfCookie, fresh, scope, 30 * 86_400))
  return fresh
}

/** The answer that signs a browser in: the session cookie, and who it is. */
export async function signedIn(
  deps: ConsoleDeps,
  url: URL,
  user: ConsoleUser,
  scope: CookieScope,
  ways: SignInWays,
): Promise<Response> {
  const now = deps.now()
  const { cookie, session } = await deps.signer.issue(user, now)
  const maxAge = (session.expiresAt - now) / 1000
  return json(await sessionInfo(deps, url, user, session.id, ways), 200, {
    'set-cookie': cookieHeader(sessionCookie, cookie, scope, maxAge),
  })
}

/** The answer that signs a browser out: the session ended here, its cookie deleted. */
export function signedOut(
  deps: ConsoleDeps,
  session: Session | undefined,
  scope: CookieScope,
): Response {
  if (session !== undefined) deps.signer.end(session)
  return json({ user: null }, 200, { 'set-cookie': cookieHeader(sessionCookie, '', scope, 0) })
}

/** The secret a sign-in form sends: `{"secret": "…"}`. */
export function readSecret(body: Record<string, unknown>): string {
  const secret = body.secret
  if (typeof secret !== 'string' || secret.trim() === '') {
    throw new ConsoleError(400, 'Enter an admin token or an API key.')
  }
  if (secret.length > 512) throw new ConsoleError(400, 'That is too long to be a token or a key.')
  return secret.trim()
}
