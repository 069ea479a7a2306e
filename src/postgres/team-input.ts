import * as z from 'zod/mini'
import { count, groupList, keyId, keyName, limitsFor, spend } from './key-input'

/** What `createTeam` takes: the id is the team's for good (keys and ledger rows carry it). */
export const createTeamInputSchema = z.strictObject({
  id: keyId,
  name: z.optional(keyName),
  /** The groups the team's keys may use; absent: every group. */
  groups: z.optional(groupList),
  /** The team's lifetime token allowance across its keys. */
  quotaTokens: z.optional(count),
  limits: z.optional(limitsFor(count)),
  /** Money budgets of the team: one, or one per period. */
  budget: z.optional(spend.budgets),
})

/** What `updateTeam` takes: absent fields stay as they are; `null` clears one. */
export const updateTeamInputSchema = z.strictObject({
  name: z.optional(z.nullable(keyName)),
  groups: z.optional(z.nullable(groupList)),
  quotaTokens: z.optional(z.nullable(count)),
  /** Merged into the team's limits; a `null` limit is removed. */
  limits: z.optional(limitsFor(z.nullable(count))),
  /** Replaces the team's money budgets; `null` removes them. */
  budget: z.optional(z.nullable(spend.budgets)),
})

/** The input of `createTeam`. */
export type CreateTeamInput = z.input<typeof createTeamInputSchema>
/** The input of `updateTeam`. */
export type UpdateTeamInput = z.input<typeof updateTeamInputSchema>
