import type { GatewayInspection } from '../../gateway-core'
import type { UsageReports } from '../../usage/usage-report'
import type { KeyAdmin } from '../key-admin'
import type { TeamAdmin } from '../team-admin'
import type { ConsoleUser, OrganisationOptions } from '../options'
import type { Session, SessionSigner } from './session'

/** What every API handler of a console may use: built once by `createConsole`. */
export type ConsoleDeps = {
  gateway: GatewayInspection
  /** The mount path, such as `/console`. */
  path: string
  keys: KeyAdmin | undefined
  teams: TeamAdmin | undefined
  usage: UsageReports | undefined
  organisation: OrganisationOptions | undefined
  publicBaseUrl: string | undefined
  signer: SessionSigner
  now: () => number
}

/** One signed-in request to the console's API. */
export type ConsoleRequest = {
  request: Request
  url: URL
  /** The path below `<mount>/api`, such as `/keys/key_1`. */
  route: string
  user: ConsoleUser
  /** The cookie session, when the user signed in with a token or key (not through `authorize`). */
  session: Session | undefined
  deps: ConsoleDeps
}

/** Whether a user may see every key (admins and viewers). */
export function seesEveryKey(user: ConsoleUser): boolean {
  return user.role === 'admin' || user.role === 'viewer'
}

/**
 * The base address clients use: `publicBaseUrl`, else the request's origin plus the gateway's
 * `basePath`. SDKs of the chat-completions family take it with `/v1` after it.
 */
export function baseAddress(deps: ConsoleDeps, url: URL): string {
  return deps.publicBaseUrl ?? `${url.origin}${deps.gateway.basePath ?? ''}`
}

/** The gateway's MCP endpoint as clients reach it, or `undefined` without an `mcp` section. */
export function mcpAddress(deps: ConsoleDeps, url: URL): string | undefined {
  const mcp = deps.gateway.mcp
  return mcp === undefined ? undefined : `${baseAddress(deps, url)}${mcp.config.path}`
}
