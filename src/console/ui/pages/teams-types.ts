import type { MoneyBudget, Totals } from './keys-types'

/** One team as the console's teams API lists it. */
export type TeamRow = {
  id: string
  name: string
  source: 'config' | 'postgres' | 'memory'
  groups: string[] | null
  quotaTokens: number | null
  limits: Record<string, number>
  budgets: Array<MoneyBudget & { spentNanoUsd: number | null; leftNanoUsd: number | null }>
  keys: Array<{ id: string; name: string; masked: string; status: string; source: string }>
  today: Totals | null
  month: Totals | null
  days: Array<{ day: string; costNanoUsd: number; totalTokens: number }>
}

/** What the teams API answers: the teams, the organisation's month by team, what the user may do. */
export type TeamsPageData = {
  canEdit: boolean
  canCreateKeys: boolean
  store: 'postgres' | 'memory' | null
  teams: TeamRow[]
  organisation: {
    month: Totals
    byTeam: Array<{ team: string; name: string; costNanoUsd: number; requests: number }>
    noTeamNanoUsd: number
  } | null
}
