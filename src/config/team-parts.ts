import type { MoneyBudget } from '../auth/key-store'
import {
  createMemoryTeamStore,
  type Organisation,
  type PerUserLimits,
  type Team,
  type TeamStore,
} from '../auth/team'
import type { MeteredSubjectKind, UsageMeter } from '../usage/usage-meter'
import { GatewayConfigError, type ConfigIssue } from './parse-config'
import type { ValidGatewayConfig } from './schema'

type TeamConfig = NonNullable<ValidGatewayConfig['teams']>[number]
type KeyConfig = NonNullable<ValidGatewayConfig['keys']>[number]

/** A config budget (one, or a list) as the list the meter takes; `undefined` when none. */
export function budgetList(
  budget: MoneyBudget | readonly MoneyBudget[] | undefined,
): readonly MoneyBudget[] | undefined {
  if (budget === undefined) return undefined
  return Array.isArray(budget) ? (budget as readonly MoneyBudget[]) : [budget as MoneyBudget]
}

/** A `teams[]` entry as the team record stores and the relay share (`Team`). */
export function teamOf(entry: TeamConfig): Team {
  return {
    id: entry.id,
    name: entry.name ?? entry.id,
    groups: entry.groups,
    quotaTokens: entry.quota?.tokens,
    limits: entry.limits,
    budgets: budgetList(entry.budget),
    mcp: entry.mcp,
  }
}

/** A key entry's `perUser`, with its budget as a list. */
export function perUserOf(entry: KeyConfig): PerUserLimits | undefined {
  const perUser = entry.perUser
  if (perUser === undefined) return undefined
  return { limits: perUser.limits, budgets: budgetList(perUser.budget) }
}

/**
 * The teams a config knows: its `teams[]`, asked first, then its `teamStore` (a database's).
 * `undefined` when it has neither, so a request of a key without a team pays nothing for teams.
 */
export function buildTeamStore(config: ValidGatewayConfig): TeamStore | undefined {
  const listed =
    config.teams === undefined ? undefined : createMemoryTeamStore(config.teams.map(teamOf))
  const stored = config.teamStore
  if (listed === undefined || stored === undefined) return listed ?? stored
  return {
    lookup(id) {
      return listed.lookup(id) ?? stored.lookup(id)
    },
  }
}

/** The config's `organisation`, with its budget as a list; `undefined` without a budget. */
export function organisationOf(config: ValidGatewayConfig): Organisation | undefined {
  const budgets = budgetList(config.organisation?.budget)
  return budgets === undefined || budgets.length === 0 ? undefined : { budgets }
}

/**
 * Refuses a config whose levels its meter would silently ignore: teams, an organisation budget or
 * `perUser` limits on a third-party `usageMeter` that does not list their kinds in `subjectKinds`
 * (the built-in meters list all). A level skipped without a word is the peers' bug (LiteLLM
 * #17054); a gateway that does not start says which field needs which kind.
 */
export function checkMeterSubjectKinds(config: ValidGatewayConfig, meter: UsageMeter): void {
  const kinds = new Set(meter.subjectKinds ?? [])
  const issues: ConfigIssue[] = []
  const need = (kind: MeteredSubjectKind, path: string) => {
    if (!kinds.has(kind)) {
      issues.push({
        path,
        message: `the usage meter does not enforce "${kind}" limits (UsageMeter.subjectKinds); use a built-in meter or one that lists "${kind}"`,
      })
    }
  }
  if ((config.teams?.length ?? 0) > 0 || config.teamStore !== undefined) need('team', 'teams')
  if (organisationOf(config) !== undefined) need('organisation', 'organisation.budget')
  const index = config.keys?.findIndex((key) => key.perUser !== undefined) ?? -1
  if (index >= 0) need('end-user', `keys[${index}].perUser`)
  if (issues.length > 0) throw new GatewayConfigError(issues)
}
