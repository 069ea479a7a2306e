import * as z from 'zod/mini'
import { buildKeyLimitsSchema } from './key-schema'
import { buildMcpGrantSchema } from './mcp-schema'
import { nonNegativeInt } from './schema-parts'
import type { buildSpendSchemas } from './spend-schema'

/**
 * The schemas of teams (`teams[]`) and of the organisation (`organisation`): limits and budgets of
 * the shapes a key has (`keys[].quota`, `limits`, `budget`), so every level reads alike. Built with
 * the rest of the config schema, on its first use.
 */
export function buildTeamSchemas(spend: ReturnType<typeof buildSpendSchemas>) {
  const team = z.strictObject({
    id: z.string().check(z.minLength(1), z.maxLength(128)),
    name: z.optional(z.string().check(z.minLength(1))),
    groups: z.optional(z.array(z.string().check(z.minLength(1)))),
    quota: z.optional(z.strictObject({ tokens: z.optional(nonNegativeInt()) })),
    limits: z.optional(buildKeyLimitsSchema()),
    budget: z.optional(spend.budgets),
    mcp: z.optional(buildMcpGrantSchema()),
  })
  const organisation = z.strictObject({ budget: z.optional(spend.budgets) })
  return { team, organisation }
}
