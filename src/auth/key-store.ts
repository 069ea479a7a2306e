import type { MaybePromise } from '../internal/maybe-promise'

/**
 * Per-key limits, beside the lifetime `quota.tokens`. Windows are per minute; budgets per UTC
 * calendar day and month. The names are the config's (`keys[].limits`) and the key CLI's flags.
 */
export type KeyLimits = {
  requestsPerMinute?: number | undefined
  inputTokensPerMinute?: number | undefined
  outputTokensPerMinute?: number | undefined
  /** Requests in flight at once. */
  concurrency?: number | undefined
  tokensPerDay?: number | undefined
  tokensPerMonth?: number | undefined
}

/**
 * A budget in money (`keys[].budget`): what a key may spend per UTC day, per UTC month, or in its
 * lifetime, in USD at the prices the gateway charges (list price × `priceMultiplier`).
 */
export type MoneyBudget = {
  usd: number
  per: 'day' | 'month' | 'lifetime'
  /** A share of `usd` (0.8 = 80 %) at which `onBudgetAlert` is called, once per period. */
  alertAt?: number | undefined
}

/**
 * The limits every end user of one key gets (`keys[].perUser`): each end user the key names is
 * held to them on its own, so one customer of a shared key cannot spend another's share.
 */
export type PerUserLimits = {
  limits?: KeyLimits | undefined
  budgets?: readonly MoneyBudget[] | undefined
}

/**
 * What a key (or its team) may use of the MCP gateway (`keys[].mcp`, `teams[].mcp`), as `*`
 * patterns: server ids and prefixed tool names (`{server}__{tool}`). Deny by default: no grant,
 * or an empty one, allows nothing (see `mcpAllowed`).
 */
export type McpGrant = {
  servers?: readonly string[] | undefined
  tools?: readonly string[] | undefined
}

/** What the gateway knows about an API key. It never holds the key itself. */
export type KeyRecord = {
  /** Stable identifier, used in usage records and events. */
  id: string
  /** A human name, shown by `GET /v1/usage` as `planName`. */
  name?: string | undefined
  /** The group ids this key may use; `undefined` means every group. */
  groups?: readonly string[] | undefined
  /** The key's total token allowance; `undefined` means unlimited. */
  quota?: { tokens?: number | undefined } | undefined
  /** Rate limits and calendar budgets of the key; an absent field is no limit. */
  limits?: KeyLimits | undefined
  /** Money budgets: one, or one per period (a day and a month together). */
  budget?: MoneyBudget | readonly MoneyBudget[] | undefined
  /**
   * The team the key belongs to (`keys[].team`, `Team.id`): its requests must also fit the team's
   * limits, and the key may use only the groups both allow. `undefined`: no team.
   */
  team?: string | undefined
  /**
   * Limits every end user of this key gets on its own (`keys[].perUser`); the end user is named by
   * the request (`user`, `metadata.user_id`, `x-gateway-user`) or by the host app.
   */
  perUser?: PerUserLimits | undefined
  /** × the price of every request, after the group's multiplier (default 1). */
  priceMultiplier?: number | undefined
  /** The MCP servers and tools the key may use; `undefined`: none (unless its team grants). */
  mcp?: McpGrant | undefined
  /** A disabled key is refused with 401. */
  disabled?: boolean | undefined
  /** When the key was revoked (database and console keys): refused with 401, told it was revoked. */
  revokedAt?: Date | undefined
  /** After this instant the key is refused with 401. */
  expiresAt?: Date | undefined
}

/**
 * Looks up API keys. Implement it to keep keys in a database; `createMemoryKeyStore` is the
 * built-in one. Implementations must not compare secrets with early-exit string equality: look
 * up by a hash of the secret (as the memory store does), or compare in constant time.
 *
 * @example
 * const store: KeyStore = { lookup: (secret) => db.findKeyByHash(sha256(secret)) }
 */
export interface KeyStore {
  /** The record for this secret, or `undefined` when it is unknown. */
  lookup(secret: string): MaybePromise<KeyRecord | undefined>
}
