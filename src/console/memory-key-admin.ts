import { hashKey } from '../auth/hash-key'
import type { KeyRecord, KeyStore, MoneyBudget } from '../auth/key-store'
import { timingSafeEqual } from '../auth/timing-safe-equal'
import { generateDatabaseKey, publicIdOf, displayKey } from '../postgres/key-format'
import {
  createKeyInputSchema,
  KeyAdminError,
  parseKeyInput,
  updateKeyInputSchema,
} from '../postgres/key-input'
import { toKeyRecord, type StoredKey } from '../postgres/stored-key'
import type { KeyAdmin } from './key-admin'

/** A key store whose keys the console creates: for a gateway without a database. */
export type MemoryKeyAdmin = KeyAdmin & KeyStore

type Entry = { hash: string; stored: StoredKey }

/**
 * Keys created in the console and kept in this process's memory, as SHA-256 hashes: pass it to
 * `createGateway` as its `keyStore` (beside the config's `keys`) and to `createConsole` as `keys`.
 * A restart forgets them, and other instances never see them; `state.postgres` keeps keys for
 * good. Keys read `sk-mg-<public id>-<secret>`, as database keys do.
 *
 * @example
 * const keys = createMemoryKeyAdmin()
 * const gateway = createGateway({ ...config, keyStore: keys })
 * const console = createConsole(gateway, { keys })
 */
export function createMemoryKeyAdmin(options: { now?: () => number } = {}): MemoryKeyAdmin {
  const now = options.now ?? Date.now
  const byPublicId = new Map<string, Entry>()
  const byId = new Map<string, Entry>()

  const find = (id: string) => byId.get(id)
  const copy = (stored: StoredKey): StoredKey => ({
    ...stored,
    groups: stored.groups === undefined ? undefined : [...stored.groups],
    limits: { ...stored.limits },
    budget: stored.budget.map((budget) => ({ ...budget })),
  })

  return {
    kind: 'memory',
    async lookup(secret: string): Promise<KeyRecord | undefined> {
      const publicId = publicIdOf(secret)
      const entry = publicId === undefined ? undefined : byPublicId.get(publicId)
      if (entry === undefined) return undefined
      return timingSafeEqual(entry.hash, await hashKey(secret))
        ? toKeyRecord(entry.stored)
        : undefined
    },
    async list(filter = {}) {
      return [...byId.values()]
        .filter((entry) => filter.includeRevoked === true || entry.stored.revokedAt === undefined)
        .map((entry) => copy(entry.stored))
    },
    async get(id) {
      const entry = find(id)
      return entry === undefined ? undefined : copy(entry.stored)
    },
    async create(input) {
      const valid = parseKeyInput(createKeyInputSchema, input)
      const { key, publicId } = generateDatabaseKey()
      const id = valid.id ?? `key_${publicId}`
      if (byId.has(id)) throw new KeyAdminError(`A key with id "${id}" exists already.`)
      const at = new Date(now())
      const stored: StoredKey = {
        id,
        publicId,
        display: displayKey(publicId),
        name: valid.name,
        groups: valid.groups,
        quotaTokens: valid.quotaTokens,
        limits: { ...valid.limits },
        budget: budgetList(valid.budget),
        priceMultiplier: valid.priceMultiplier,
        team: valid.team,
        expiresAt: toDate(valid.expiresAt),
        revokedAt: undefined,
        createdAt: at,
        updatedAt: at,
      }
      const entry = { hash: await hashKey(key), stored }
      byId.set(id, entry)
      byPublicId.set(publicId, entry)
      return { key, stored: copy(stored) }
    },
    async update(id, changes) {
      const entry = find(id)
      if (entry === undefined) return undefined
      const valid = parseKeyInput(updateKeyInputSchema, changes)
      const stored = entry.stored
      if (valid.name !== undefined) stored.name = valid.name ?? undefined
      if (valid.groups !== undefined) stored.groups = valid.groups ?? undefined
      if (valid.quotaTokens !== undefined) stored.quotaTokens = valid.quotaTokens ?? undefined
      if (valid.limits !== undefined) {
        for (const [name, value] of Object.entries(valid.limits)) {
          const limit = name as keyof StoredKey['limits']
          if (value === null) delete stored.limits[limit]
          else if (value !== undefined) stored.limits[limit] = value
        }
      }
      if (valid.budget !== undefined) stored.budget = budgetList(valid.budget)
      if (valid.priceMultiplier !== undefined) {
        stored.priceMultiplier = valid.priceMultiplier ?? undefined
      }
      if (valid.expiresAt !== undefined) stored.expiresAt = toDate(valid.expiresAt ?? undefined)
      if (valid.team !== undefined) stored.team = valid.team ?? undefined
      stored.updatedAt = new Date(now())
      return copy(stored)
    },
    async revoke(id) {
      const entry = find(id)
      if (entry === undefined) return undefined
      entry.stored.revokedAt ??= new Date(now())
      entry.stored.updatedAt = new Date(now())
      return copy(entry.stored)
    },
  }
}

/** Budgets as a key keeps them: a list, one per period (`null` clears them all). */
function budgetList(
  budget: MoneyBudget | readonly MoneyBudget[] | null | undefined,
): MoneyBudget[] {
  if (budget === undefined || budget === null) return []
  return (Array.isArray(budget) ? budget : [budget]).map((item: MoneyBudget) => ({ ...item }))
}

function toDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined
  return typeof value === 'string' ? new Date(value) : value
}
