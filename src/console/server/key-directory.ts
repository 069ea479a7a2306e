import type { KeyLimits, KeyRecord, MoneyBudget } from '../../auth/key-store'
import { moneyBudgetsOf } from '../../usage/key-limits'
import type { StoredKey } from '../../postgres/stored-key'
import { toKeyRecord } from '../../postgres/stored-key'
import type { ConsoleDeps } from './context'

/** A key as the console lists it: never its secret, nor its hash. */
export type ConsoleKey = {
  id: string
  name: string
  /** `sk-…abcd`, `sk-mg-<public id>-…` or `sha256:0123abcd…`. */
  masked: string
  /** `config` keys are read-only here; the others can be edited and revoked. */
  source: 'config' | 'postgres' | 'memory'
  status: 'active' | 'revoked' | 'expired' | 'disabled'
  groups: string[] | null
  expiresAt: string | null
  quotaTokens: number | null
  limits: KeyLimits
  /** Money budgets, one per period (USD). */
  budget: MoneyBudget[]
  /** × the price of every request (after the group's); `null` is 1. */
  priceMultiplier: number | null
  /** The key's team (`teams[].id`, or a team of the team admin); `null`: none. */
  team: string | null
  createdAt: string | null
}

/** A key with the record the gateway authenticates it as (for the server only). */
export type DirectoryKey = { key: ConsoleKey; record: KeyRecord }

/**
 * Every key the console knows: the config's (read-only, masked) and the key admin's (the
 * database's, or this process's), the config's first as the gateway asks them first.
 */
export async function listDirectory(deps: ConsoleDeps): Promise<DirectoryKey[]> {
  const now = deps.now()
  const configKeys = await deps.gateway.configKeys()
  const fromConfig = configKeys.map(({ record, masked }) => ({
    record,
    key: describe(record, masked, 'config', now, undefined),
  }))
  const stored = deps.keys === undefined ? [] : await deps.keys.list({ includeRevoked: true })
  return [...fromConfig, ...stored.map((key) => fromStored(key, deps.keys!.kind, now))]
}

/** One key by id, or `undefined`. */
export async function findKey(deps: ConsoleDeps, id: string): Promise<DirectoryKey | undefined> {
  const configKey = (await deps.gateway.configKeys()).find((key) => key.record.id === id)
  if (configKey !== undefined) {
    return {
      record: configKey.record,
      key: describe(configKey.record, configKey.masked, 'config', deps.now(), undefined),
    }
  }
  const stored = await deps.keys?.get(id)
  return stored === undefined ? undefined : fromStored(stored, deps.keys!.kind, deps.now())
}

/** A stored key (database or memory) as the console lists it. */
export function fromStored(
  stored: StoredKey,
  source: 'postgres' | 'memory',
  now: number,
): DirectoryKey {
  const record = toKeyRecord(stored)
  return { record, key: describe(record, stored.display, source, now, stored.createdAt) }
}

function describe(
  record: KeyRecord,
  masked: string,
  source: ConsoleKey['source'],
  now: number,
  createdAt: Date | undefined,
): ConsoleKey {
  return {
    id: record.id,
    name: record.name ?? record.id,
    masked,
    source,
    status: statusOf(record, now, source),
    groups: record.groups === undefined ? null : [...record.groups],
    expiresAt: record.expiresAt?.toISOString() ?? null,
    quotaTokens: record.quota?.tokens ?? null,
    limits: { ...record.limits },
    budget: (moneyBudgetsOf(record.budget) ?? []).map((budget) => ({ ...budget })),
    priceMultiplier: record.priceMultiplier ?? null,
    team: record.team ?? null,
    createdAt: createdAt?.toISOString() ?? null,
  }
}

function statusOf(
  record: KeyRecord,
  now: number,
  source: ConsoleKey['source'],
): ConsoleKey['status'] {
  if (record.disabled === true) return source === 'config' ? 'disabled' : 'revoked'
  if (record.expiresAt !== undefined && record.expiresAt.getTime() <= now) return 'expired'
  return 'active'
}
