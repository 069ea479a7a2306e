import type { PostgresOptions } from '../postgres/client'
import type { UsageReports } from '../usage/usage-report'
import type { KeyAdmin } from './key-admin'
import type { TeamAdmin } from './team-admin'

/** Who may use the console, and what they see. */
export type ConsoleRole = 'admin' | 'viewer' | 'key'

/**
 * A signed-in user: an admin (every key; create, edit, revoke), a viewer (every key, read-only),
 * or a key holder, who sees their own key only (`keyId`), never another key or the organisation.
 */
export type ConsoleUser =
  | { role: 'admin' | 'viewer'; name?: string | undefined }
  | { role: 'key'; keyId: string; name?: string | undefined }

/**
 * How people sign in. At least one way is required: `createConsole` refuses to start without.
 * - `adminTokens` / `viewerTokens`: secrets (16+ printable characters, or `sha256:<hex>` of one),
 *   kept only as SHA-256 hashes and compared in constant time, exchanged at sign-in for a signed,
 *   HttpOnly, SameSite=Strict session cookie;
 * - `keyLogin`: key holders sign in with their own `sk-` key;
 * - `authorize`: the embedding app's own sessions or SSO decide, per request (`null`: not
 *   signed in). The console then shows no sign-in form of its own.
 */
export type ConsoleAuth = {
  adminTokens?: readonly string[] | undefined
  viewerTokens?: readonly string[] | undefined
  keyLogin?: boolean | undefined
  authorize?:
    | ((
        request: Request,
      ) => ConsoleUser | null | undefined | Promise<ConsoleUser | null | undefined>)
    | undefined
  /**
   * The secret session cookies are signed with (32+ characters). Default: random per process, so a
   * restart signs everyone out; give every instance behind one address the same secret.
   */
  sessionSecret?: string | undefined
  /** How long a sign-in lasts (default 480 minutes). */
  sessionTtlMinutes?: number | undefined
}

/** The organisation's spend, as the keys page shows it to admins and viewers. */
export type OrganisationOptions = {
  /** A budget in USD the organisation's spend is shown against. */
  budgetUsd?: number | undefined
  /** The budget's period (default `month`). */
  budgetPer?: 'day' | 'month' | undefined
  /** A prepaid balance: `usd` on the UTC day `since`; what is left is it minus the spend since. */
  balance?:
    | { usd: number; since: string }
    | (() => { usd: number; asOf?: string } | Promise<{ usd: number; asOf?: string }>)
    | undefined
}

/** Options of `createConsole`; each one given here wins over the config's `console` section. */
export type ConsoleOptions = {
  /** Where the console is mounted (default `/console`). */
  path?: string | undefined
  auth?: ConsoleAuth | undefined
  /** The base address shown and filled into the call guide (default: the request's origin plus `basePath`). */
  publicBaseUrl?: string | undefined
  /**
   * Where keys are created, edited and revoked: `createPostgresKeyAdmin(postgres)` or
   * `createMemoryKeyAdmin()` (also the gateway's `keyStore`). Without one, keys are read-only.
   */
  keys?: KeyAdmin | undefined
  /**
   * Where teams are listed, created and edited: `createPostgresTeamAdmin(postgres)` or
   * `createMemoryTeamAdmin()` (also the gateway's `teamStore`). The config's teams are shown
   * read-only beside them. Without one, teams cannot be created here.
   */
  teams?: TeamAdmin | undefined
  /**
   * Where usage per day, model and key is read: `createPostgresUsageReports(postgres)`. Default:
   * the gateway's usage ledger when it offers reports (`createMemoryUsageLedger`), else the
   * meter's totals per key.
   */
  usage?: UsageReports | undefined
  /** Shorthand for `keys`, `teams` and `usage` over the gateway's database (`state.postgres`). */
  postgres?: PostgresOptions | undefined
  organisation?: OrganisationOptions | undefined
  /**
   * The client's address, which sign-in attempts are limited by. Default: what the runtime hands
   * the handler (the Node bridge's socket, Deno's `remoteAddr`, Bun's `requestIP`, Cloudflare's
   * `cf-connecting-ip`); without one, every client shares one limit.
   */
  clientAddress?: ((request: Request, context?: object) => string | undefined) | undefined
}
