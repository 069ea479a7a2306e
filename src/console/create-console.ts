import type { GatewayHandler } from '../gateway'
import { coreOf, type GatewayInspection } from '../gateway-core'
import { createPostgresUsageReports } from '../postgres/usage-reports'
import { ConsoleError, errorAnswer, json } from './server/answers'
import { runtimeClientAddress } from './server/client-address'
import { cookieHeader, readCookie, type CookieScope } from './server/cookies'
import type { ConsoleDeps, ConsoleRequest } from './server/context'
import { createSessionSigner, type Session } from './server/session'
import { createSignInLimiter } from './server/sign-in-limiter'
import { hashTokens, signInWith } from './server/sign-in'
import { checkOrigin, readJsonBody } from './server/request-checks'
import { assetAnswer, pageAnswer } from './server/static'
import { findKey } from './server/key-directory'
import {
  csrfSeedOf,
  readSecret,
  sessionCookie,
  sessionInfo,
  signedIn,
  signedOut,
  type SignInWays,
} from './api/session'
import { routeApi } from './api/routes'
import { createPostgresKeyAdmin } from './key-admin'
import { createPostgresTeamAdmin } from './team-admin'
import type { ConsoleAuth, ConsoleOptions, ConsoleUser, OrganisationOptions } from './options'
import type { Organisation } from '../auth/team'

/** The console: a WHATWG handler for every request under its `path`. */
export type ConsoleHandler = ((request: Request, context?: object) => Promise<Response>) & {
  /** Where it is mounted, such as `/console`. */
  readonly path: string
  /** Whether a request's path is the console's (route those to it, the rest to the gateway). */
  handles(pathname: string): boolean
}

/**
 * Creates the web console of a gateway built by `createGateway`: the "API keys" page with the
 * base address, the call guide, the model catalogue, usage and upstream health, for admins,
 * viewers and (optionally) key holders. It answers every request under `path` (default
 * `/console`): the page, its embedded assets, and its JSON API under `<path>/api`. Route those
 * requests to it and the rest to the gateway, on any runtime.
 *
 * The config's `console` section is read from the gateway; `options` win over it. It refuses to
 * start without a way to sign in (`auth`).
 *
 * @throws Error without a way to sign in, or for a handler `createGateway` did not build
 * @example
 * const gateway = createGateway(config)
 * const console = createConsole(gateway, { auth: { adminTokens: [process.env.CONSOLE_ADMIN_TOKEN!] } })
 * Bun.serve({ fetch: (request) => (console.handles(new URL(request.url).pathname) ? console(request) : gateway(request)) })
 */
export function createConsole(
  gateway: GatewayHandler,
  options: ConsoleOptions = {},
): ConsoleHandler {
  const core = coreOf(gateway)
  if (core === undefined) {
    throw new TypeError('createConsole takes a gateway made by createGateway.')
  }
  const inspection = core.inspect()
  const section = inspection.console
  const auth: ConsoleAuth = {
    adminTokens: section?.adminTokens,
    viewerTokens: section?.viewerTokens,
    keyLogin: section?.keyLogin,
    sessionSecret: section?.sessionSecret,
    sessionTtlMinutes: section?.sessionTtlMinutes,
    ...definedOf(options.auth ?? {}),
  }
  const adminTokens = auth.adminTokens ?? []
  const viewerTokens = auth.viewerTokens ?? []
  const ways: SignInWays = {
    tokens: adminTokens.length + viewerTokens.length > 0,
    keyLogin: auth.keyLogin === true,
    external: auth.authorize !== undefined,
  }
  if (!ways.tokens && !ways.keyLogin && !ways.external) {
    throw new Error(
      'createConsole needs a way to sign in: auth.adminTokens, auth.viewerTokens, auth.keyLogin or auth.authorize (the config: console.adminTokens).',
    )
  }
  checkTokens(adminTokens, viewerTokens)
  if (auth.sessionSecret !== undefined && auth.sessionSecret.length < 32) {
    throw new Error('auth.sessionSecret must be at least 32 characters long.')
  }
  const path = options.path ?? section?.path ?? '/console'
  if (!/^\/[A-Za-z0-9._~-]+(?:\/[A-Za-z0-9._~-]+)*$/.test(path)) {
    throw new Error(
      `Invalid console path "${path}": use a path such as "/console", no trailing slash.`,
    )
  }
  const publicBaseUrl = options.publicBaseUrl ?? section?.publicBaseUrl
  if (publicBaseUrl !== undefined && !/^https?:\/\/[^/]/.test(publicBaseUrl)) {
    throw new Error(`Invalid publicBaseUrl "${publicBaseUrl}": expected an http(s) URL.`)
  }
  const tokens = hashTokens(adminTokens, viewerTokens)
  // Plaintext tokens are no longer needed once hashed; a failure to hash surfaces on first use.
  tokens.catch(() => undefined)
  const deps: ConsoleDeps = {
    gateway: inspection,
    path,
    keys:
      options.keys ??
      (options.postgres === undefined ? undefined : createPostgresKeyAdmin(options.postgres)),
    teams:
      options.teams ??
      (options.postgres === undefined ? undefined : createPostgresTeamAdmin(options.postgres)),
    usage:
      options.usage ??
      (options.postgres === undefined ? undefined : createPostgresUsageReports(options.postgres)),
    organisation:
      options.organisation ??
      section?.organisation ??
      organisationPanelOptions(inspection.runtime.organisation),
    publicBaseUrl: publicBaseUrl?.replace(/\/+$/, ''),
    signer: createSessionSigner(auth.sessionSecret, (auth.sessionTtlMinutes ?? 480) * 60_000),
    now: inspection.runtime.now,
  }
  const limiter = createSignInLimiter()
  const clientAddress = options.clientAddress ?? runtimeClientAddress
  const handles = (pathname: string) => pathname === path || pathname.startsWith(`${path}/`)

  async function api(request: Request, url: URL, route: string, context?: object) {
    const scope: CookieScope = { path, secure: servedOverHttps(request, url) }
    const method = request.method
    const setCookies: string[] = []
    const session = await deps.signer.read(
      readCookie(request.headers.get('cookie'), sessionCookie),
      deps.now(),
    )
    if (route === '/session' && method === 'POST') {
      checkOrigin(request, url, deps.publicBaseUrl)
      return signIn(request, url, scope, context)
    }
    const user = await userOf(request, session)
    if (route === '/session' && method === 'GET') {
      if (user === undefined) return json({ user: null, signIn: ways })
      const seed = csrfSeedOf(request, session, scope, setCookies)
      const info = await sessionInfo(deps, url, user, seed, ways)
      return withCookies(json(info), setCookies)
    }
    if (user === undefined) {
      throw new ConsoleError(401, 'Sign in first.', clearSession(session, scope))
    }
    if (method !== 'GET' && method !== 'HEAD') {
      checkOrigin(request, url, deps.publicBaseUrl)
      const seed = csrfSeedOf(request, session, scope, setCookies)
      if (!(await deps.signer.checkCsrf(seed, request.headers.get('x-csrf-token')))) {
        throw new ConsoleError(403, 'The CSRF token is missing or stale: reload the page.')
      }
    }
    if (route === '/session' && method === 'DELETE') return signedOut(deps, session, scope)
    const call: ConsoleRequest = { request, url, route, user, session, deps }
    const body = method === 'POST' || method === 'PATCH' ? await readJsonBody(request) : undefined
    return withCookies(json(await routeApi(call, method, body)), setCookies)
  }

  async function signIn(request: Request, url: URL, scope: CookieScope, context?: object) {
    if (!ways.tokens && !ways.keyLogin) {
      throw new ConsoleError(404, 'Sign in through the application that embeds this console.')
    }
    const client = clientAddress(request, context) ?? 'unknown'
    const now = deps.now()
    const waitMs = limiter.waitMs(client, now)
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000)
      throw new ConsoleError(429, `Too many failed sign-ins: try again in ${seconds} s.`, {
        'retry-after': String(seconds),
      })
    }
    const secret = readSecret(await readJsonBody(request))
    const user = await signInWith(secret, await tokens, ways.keyLogin, inspection)
    if (user === undefined) {
      limiter.failed(client, now)
      throw new ConsoleError(401, 'That token or key is not valid.')
    }
    return signedIn(deps, url, user, scope, ways)
  }

  /** The signed-in user: a cookie session (re-checked for key holders), else `authorize`. */
  async function userOf(
    request: Request,
    session: Session | undefined,
  ): Promise<ConsoleUser | undefined> {
    if (session !== undefined) {
      const user = session.user
      if (user.role !== 'key') return user
      // A key holder's session ends with their key: revoked, expired or gone. A key the console
      // has no way to look up by id (a custom key store, and no key admin to ask) lasts as long
      // as its session: the TTL bounds it.
      const found = await findKey(deps, user.keyId)
      if (found === undefined) return deps.keys === undefined ? user : undefined
      return found.key.status === 'active' ? user : undefined
    }
    const external = await auth.authorize?.(request)
    return external ?? undefined
  }

  const handler = async (request: Request, context?: object): Promise<Response> => {
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return json({ error: { message: 'The request URL is malformed.' } }, 400)
    }
    if (!handles(url.pathname)) return json({ error: { message: 'Not the console.' } }, 404)
    const sub = url.pathname.slice(path.length)
    const method = request.method
    try {
      if (sub.startsWith('/api/') || sub === '/api') {
        return await api(request, url, sub.slice('/api'.length), context)
      }
      if (method !== 'GET' && method !== 'HEAD') {
        throw new ConsoleError(405, `${method} is not served here.`, { allow: 'GET, HEAD' })
      }
      if (sub === '') return new Response(null, { status: 308, headers: { location: `${path}/` } })
      if (sub === '/' || sub === '/index.html') return pageAnswer(path, method === 'HEAD')
      if (sub.startsWith('/assets/')) {
        const asset = assetAnswer(sub.slice('/assets/'.length), request)
        if (asset !== undefined) return asset
      }
      throw new ConsoleError(404, `Nothing at ${url.pathname}.`)
    } catch (error) {
      if (error instanceof ConsoleError) return errorAnswer(error)
      console.error('[model-gateway] console failed:', error)
      return json({ error: { message: 'The console failed; the server log says why.' } }, 500)
    }
  }
  return Object.assign(handler, { path, handles })
}

/** Whether the browser reached the console over https (directly, or through a TLS proxy). */
function servedOverHttps(request: Request, url: URL): boolean {
  return url.protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https'
}

function clearSession(session: Session | undefined, scope: CookieScope): Record<string, string> {
  return session === undefined ? {} : { 'set-cookie': cookieHeader(sessionCookie, '', scope, 0) }
}

function withCookies(response: Response, cookies: readonly string[]): Response {
  for (const cookie of cookies) response.headers.append('set-cookie', cookie)
  return response
}

function definedOf<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== undefined),
  ) as Partial<T>
}

function checkTokens(adminTokens: readonly string[], viewerTokens: readonly string[]): void {
  for (const token of [...adminTokens, ...viewerTokens]) {
    if (typeof token !== 'string' || !/^(?:sha256:[0-9a-fA-F]{64}|[\x21-\x7e]{16,})$/.test(token)) {
      throw new Error(
        'Console tokens are at least 16 printable characters without spaces, or "sha256:" and 64 hex digits.',
      )
    }
  }
}

export type { GatewayInspection }

/**
 * The organisation panel of the config's enforced budget (`organisation.budget`), when the
 * console section names none of its own: the monthly budget, else the daily one (the panel shows
 * one period; a lifetime budget has no period to show).
 */
function organisationPanelOptions(
  organisation: Organisation | undefined,
): OrganisationOptions | undefined {
  const budgets = organisation?.budgets ?? []
  const budget =
    budgets.find((item) => item.per === 'month') ?? budgets.find((item) => item.per === 'day')
  if (budget === undefined) return undefined
  return { budgetUsd: budget.usd, budgetPer: budget.per === 'day' ? 'day' : 'month' }
}
