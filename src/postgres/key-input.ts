import * as z from 'zod/mini'
import { checkConfig } from '../config/check-config'
import { buildSpendSchemas } from '../config/spend-schema'

/** The money schemas of the config (budgets, price multiplier), for keys and teams. */
export const spend = buildSpendSchemas()

/** A whole number of tokens or requests. */
export const count = z.int().check(z.nonnegative())
const when = z.union([
  z.date(),
  z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time' }),
])

/** The limits object of a key or team, each limit of the value's schema. */
export const limitsFor = <T extends z.ZodMiniType>(value: T) =>
  z.strictObject({
    requestsPerMinute: z.optional(value),
    inputTokensPerMinute: z.optional(value),
    outputTokensPerMinute: z.optional(value),
    concurrency: z.optional(value),
    tokensPerDay: z.optional(value),
    tokensPerMonth: z.optional(value),
  })

/** A key's or team's id: what usage records, events and the ledger carry. */
export const keyId = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
      'ids are 1 to 128 letters, digits, ".", "_", ":" and "-"',
    ),
  )
/** A key's or team's human name. */
export const keyName = z.string().check(z.minLength(1), z.maxLength(200))
/** The groups a key or team may use. */
export const groupList = z.array(z.string().check(z.minLength(1)))

/** What `createKey` takes. */
export const createKeyInputSchema = z.strictObject({
  /** The key's id in usage records; default `key_<public id>`. */
  id: z.optional(keyId),
  name: z.optional(keyName),
  groups: z.optional(groupList),
  quotaTokens: z.optional(count),
  limits: z.optional(limitsFor(count)),
  /** Money budgets: one, or one per period. */
  budget: z.optional(spend.budgets),
  priceMultiplier: z.optional(spend.priceMultiplier),
  expiresAt: z.optional(when),
  /** The team the key belongs to: a team of the teams table (or of the config, when told). */
  team: z.optional(keyId),
})

/** What `updateKey` takes: absent fields stay as they are; `null` clears one. */
export const updateKeyInputSchema = z.strictObject({
  name: z.optional(z.nullable(keyName)),
  groups: z.optional(z.nullable(groupList)),
  quotaTokens: z.optional(z.nullable(count)),
  /** Merged into the key's limits; a `null` limit is removed. */
  limits: z.optional(limitsFor(z.nullable(count))),
  /** Replaces the key's money budgets; `null` removes them. */
  budget: z.optional(z.nullable(spend.budgets)),
  priceMultiplier: z.optional(z.nullable(spend.priceMultiplier)),
  expiresAt: z.optional(z.nullable(when)),
  /** Moves the key to another team; `null` takes it out of its team. */
  team: z.optional(z.nullable(keyId)),
})

/** The input of `createKey`. */
export type CreateKeyInput = z.input<typeof createKeyInputSchema>
/** The input of `updateKey`. */
export type UpdateKeyInput = z.input<typeof updateKeyInputSchema>

/** Thrown by the key admin functions for bad input, or an id that exists or does not. */
export class KeyAdminError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'KeyAdminError'
  }
}

/**
 * Validates admin input with zod.
 *
 * @throws KeyAdminError listing every bad field
 */
export function parseKeyInput<T extends z.ZodMiniType>(schema: T, input: unknown): z.output<T> {
  const result = checkConfig(schema, input)
  if (result.success) return result.data
  throw new KeyAdminError(
    result.error.issues
      .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
      .join('; '),
  )
}
