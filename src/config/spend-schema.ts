import * as z from 'zod/mini'
import { isExactPrice } from '../pricing/price-units'
import { positiveInt } from './schema-parts'

/**
 * The config's money parts (issue 20): prices (`prices`, `models[].price`), price multipliers and
 * key budgets. Built with the rest of the config schema, on its first use.
 */
export function buildSpendSchemas() {
  const usdPerMillion = z
    .number()
    .check(z.refine(isExactPrice, 'expected USD per 1M tokens: 0 or more, with at most 6 decimals'))
  const tier = z.strictObject({
    aboveInputTokens: positiveInt(),
    input: usdPerMillion,
    output: usdPerMillion,
    cachedInput: z.optional(usdPerMillion),
    cacheWrite: z.optional(usdPerMillion),
    cacheWrite1h: z.optional(usdPerMillion),
  })
  /** A price, or part of one to lay over the catalogue's (`PriceOverride`). */
  const price = z.strictObject({
    input: z.optional(usdPerMillion),
    output: z.optional(usdPerMillion),
    cachedInput: z.optional(usdPerMillion),
    cacheWrite: z.optional(usdPerMillion),
    cacheWrite1h: z.optional(usdPerMillion),
    perRequest: z.optional(
      z
        .number()
        .check(
          z.refine(
            (usd) => isExactPrice(usd * 1_000_000),
            'expected USD per request: 0 or more, with at most 12 decimals',
          ),
        ),
    ),
    tiers: z.optional(
      z
        .array(tier)
        .check(
          z.refine(
            (tiers) =>
              tiers.every((t, i) => i === 0 || t.aboveInputTokens > tiers[i - 1]!.aboveInputTokens),
            'tiers go by ascending aboveInputTokens',
          ),
        ),
    ),
    source: z.optional(z.string().check(z.minLength(1))),
    asOf: z.optional(z.iso.date({ error: 'expected a date as YYYY-MM-DD' })),
  })
  /** A price, or `false` for a model that must stay unpriced. */
  const priceOrFalse = z.union([z.literal(false), price])
  /** `prices`: upstream-model patterns to prices. */
  const prices = z.record(z.string().check(z.minLength(1)), priceOrFalse)
  /** A resale margin: × the list price, up to 1000, six decimals at most. */
  const priceMultiplier = z
    .number()
    .check(
      z.refine(
        (value) =>
          value > 0 && value <= 1000 && Math.abs(value * 1e6 - Math.round(value * 1e6)) < 1e-6,
        'expected a multiplier above 0 and at most 1000, with at most 6 decimals',
      ),
    )
  const budget = z.strictObject({
    usd: z.number().check(z.nonnegative(), z.maximum(9_000_000)),
    per: z.enum(['day', 'month', 'lifetime'], { error: 'expected "day", "month" or "lifetime"' }),
    /** A share of `usd` (0.8 = 80 %) whose crossing raises `onBudgetAlert` once per period. */
    alertAt: z.optional(z.number().check(z.positive(), z.maximum(1))),
  })
  /** `keys[].budget`: one budget, or several with different periods (a day and a month). */
  const budgets = z.union([
    budget,
    z.array(budget).check(
      z.minLength(1),
      z.refine(
        (list) => new Set(list.map((item) => item.per)).size === list.length,
        'one budget per period: "day", "month" and "lifetime" at most once each',
      ),
    ),
  ])
  return { price, priceOrFalse, prices, priceMultiplier, budgets }
}
