import type { KeyLimits, KeyRecord, MoneyBudget } from '../auth/key-store'
import { isJsonObject, parseJson } from '../internal/json'
import { displayKey } from './key-format'

/** A database key as the admin functions hand it out: everything but its secret. */
export type StoredKey = {
  id: string
  /** The public middle of `sk-mg-<public id>-<secret>`. */
  publicId: string
  /** `sk-mg-<public id>-…`: how listings and logs show the key. */
  display: string
  name: string | undefined
  /** The groups the key may use; `undefined` means every group. */
  groups: string[] | undefined
  /** The lifetime token allowance; `undefined` means unlimited. */
  quotaTokens: number | undefined
  limits: KeyLimits
  /** Money budgets, one per period; empty when the key has none. */
  budget: MoneyBudget[]
  /** × the price of every request; `undefined` is 1. */
  priceMultiplier: number | undefined
  /** The id of the key's team; `undefined`: no team. */
  team: string | undefined
  expiresAt: Date | undefined
  /** Set once the key is revoked; a revoked key is refused with 401. */
  revokedAt: Date | undefined
  createdAt: Date
  updatedAt: Date
}

/**
 * The select list every key query uses. Values come back as text (or booleans) so that drivers
 * that parse `bigint`, `jsonb` or `timestamptz` differently all give the same answer.
 */
export const storedKeyColumns = `id, public_id, name,
  groups::text AS groups, quota_tokens::text AS quota_tokens, limits::text AS limits,
  budget::text AS budget, price_multiplier::text AS price_multiplier, team,
  ${epochMs('expires_at')} AS expires_ms, ${epochMs('revoked_at')} AS revoked_ms,
  ${epochMs('created_at')} AS created_ms, ${epochMs('updated_at')} AS updated_ms`

/** SQL for a timestamp column as epoch ms, as text. */
export function epochMs(column: string): string {
  return `floor(extract(epoch FROM ${column}) * 1000)::bigint::text`
}

/** Reads one row selected with `storedKeyColumns`. */
export function readStoredKey(row: Record<string, unknown>): StoredKey {
  const publicId = String(row.public_id)
  const groups = readJson(row.groups)
  return {
    id: String(row.id),
    publicId,
    display: displayKey(publicId),
    name: row.name === null || row.name === undefined ? undefined : String(row.name),
    groups: Array.isArray(groups) ? groups.map(String) : undefined,
    quotaTokens: readNumber(row.quota_tokens),
    limits: readLimits(readJson(row.limits)),
    budget: readBudget(readJson(row.budget)),
    priceMultiplier: readNumber(row.price_multiplier),
    team: row.team === null || row.team === undefined ? undefined : String(row.team),
    expiresAt: readDate(row.expires_ms),
    revokedAt: readDate(row.revoked_ms),
    createdAt: readDate(row.created_ms) ?? new Date(0),
    updatedAt: readDate(row.updated_ms) ?? new Date(0),
  }
}

/** The gateway's view of a stored key. */
export function toKeyRecord(key: StoredKey): KeyRecord {
  return {
    id: key.id,
    name: key.name ?? key.id,
    groups: key.groups,
    quota: key.quotaTokens === undefined ? undefined : { tokens: key.quotaTokens },
    limits: Object.keys(key.limits).length === 0 ? undefined : key.limits,
    budget: key.budget.length === 0 ? undefined : key.budget,
    priceMultiplier: key.priceMultiplier,
    ...(key.team === undefined ? {} : { team: key.team }),
    disabled: key.revokedAt !== undefined,
    revokedAt: key.revokedAt,
    expiresAt: key.expiresAt,
  }
}

const limitNames: ReadonlyArray<keyof KeyLimits> = [
  'requestsPerMinute',
  'inputTokensPerMinute',
  'outputTokensPerMinute',
  'concurrency',
  'tokensPerDay',
  'tokensPerMonth',
]

/** The names of the per-key limits, in the order listings show them. */
export const keyLimitNames = limitNames

/** Limits read from a JSON column: known, finite limits only. */
export function readLimits(value: unknown): KeyLimits {
  const limits: KeyLimits = {}
  if (!isJsonObject(value)) return limits
  for (const name of limitNames) {
    const limit = value[name]
    if (typeof limit === 'number' && Number.isFinite(limit)) limits[name] = limit
  }
  return limits
}

const periods = new Set(['day', 'month', 'lifetime'])

/** The budgets a row holds: well-formed entries only, so a hand-edited row cannot crash a lookup. */
export function readBudget(value: unknown): MoneyBudget[] {
  if (!Array.isArray(value)) return []
  const budgets: MoneyBudget[] = []
  for (const entry of value) {
    if (!isJsonObject(entry)) continue
    const { usd, per, alertAt } = entry
    if (typeof usd !== 'number' || !(usd >= 0) || typeof per !== 'string' || !periods.has(per)) {
      continue
    }
    budgets.push({
      usd,
      per: per as MoneyBudget['per'],
      ...(typeof alertAt === 'number' && alertAt > 0 && alertAt <= 1 ? { alertAt } : {}),
    })
  }
  return budgets
}

/** A JSON column's value, whether the driver parsed it or handed text. */
export function readJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? undefined
  const parsed = parseJson(value)
  return parsed.ok ? parsed.value : undefined
}

/** A numeric column's value, or `undefined` for null. */
export function readNumber(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined
  const number = Number(value)
  return Number.isFinite(number) ? number : undefined
}

/** A column of epoch ms as a date, or `undefined` for null. */
export function readDate(value: unknown): Date | undefined {
  const ms = readNumber(value)
  return ms === undefined ? undefined : new Date(ms)
}
