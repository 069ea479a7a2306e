import * as z from 'zod/mini'
import { checkAlways } from '../internal/check-always'
import { buildMcpGrantSchema } from './mcp-schema'
import { nonNegativeInt, positiveInt } from './schema-parts'
import type { buildSpendSchemas } from './spend-schema'

/**
 * A key entry's schema (`keys[]`): the key or its hash (exactly one), its id, name and groups, its
 * quota, limits and money budgets, its price multiplier, and whether it is disabled or expires.
 * Built with the rest of the config schema, on its first use.
 */
export function buildKeyEntrySchema(spend: ReturnType<typeof buildSpendSchemas>) {
  const keyLimits = buildKeyLimitsSchema()

  const keyEntry = z
    .strictObject({
      key: z.optional(
        z
          .string()
          .check(
            z.startsWith('sk-', 'keys start with "sk-"'),
            z.minLength(20, 'keys are at least 20 characters long'),
          ),
      ),
      keyHash: z.optional(
        z
          .string()
          .check(z.regex(/^sha256:[0-9a-fA-F]{64}$/, 'expected "sha256:" and 64 hex digits')),
      ),
      id: z.optional(z.string().check(z.minLength(1))),
      name: z.optional(z.string().check(z.minLength(1))),
      groups: z.optional(z.array(z.string().check(z.minLength(1)))),
      quota: z.optional(z.strictObject({ tokens: z.optional(nonNegativeInt()) })),
      limits: z.optional(keyLimits),
      /** Money budgets in USD per day, month or lifetime. */
      budget: z.optional(spend.budgets),
      /** × the list price, after the group's multiplier. */
      priceMultiplier: z.optional(spend.priceMultiplier),
      /** The team the key belongs to (`teams[].id`). */
      team: z.optional(z.string().check(z.minLength(1))),
      /** Limits each end user of the key gets on its own. */
      perUser: z.optional(
        z.strictObject({ limits: z.optional(keyLimits), budget: z.optional(spend.budgets) }),
      ),
      /** The MCP servers and tools the key may use (deny by default). */
      mcp: z.optional(buildMcpGrantSchema()),
      disabled: z.optional(z.boolean()),
      expiresAt: z.optional(z.iso.datetime({ offset: true })),
    })
    .check(
      z.refine((entry) => (entry.key === undefined) !== (entry.keyHash === undefined), {
        message: 'give exactly one of "key" or "keyHash"',
        when: checkAlways,
      }),
    )

  return keyEntry
}

/**
 * The limits of a key (`KeyLimits`), a team's and an end user's alike: windows of at least 1,
 * budgets of 0 or more (0 refuses all).
 */
export function buildKeyLimitsSchema() {
  const perMinute = z.optional(positiveInt())
  const budget = z.optional(nonNegativeInt())
  return z.strictObject({
    requestsPerMinute: perMinute,
    inputTokensPerMinute: perMinute,
    outputTokensPerMinute: perMinute,
    concurrency: perMinute,
    tokensPerDay: budget,
    tokensPerMonth: budget,
  })
}
