import type { MoneyBudget } from '../../auth/key-store'
import type { Team } from '../../auth/team'
import { KeyAdminError } from '../../postgres/key-input'
import type { StoredTeam } from '../../postgres/stored-team'
import type { CreateTeamInput, UpdateTeamInput } from '../../postgres/team-input'
import { usdToNano } from '../../pricing/price-units'
import { emptyTotals, type UsageTotals } from '../../usage/usage-report'
import { ConsoleError } from '../server/answers'
import type { ConsoleDeps, ConsoleRequest } from '../server/context'
import { listDirectory, type ConsoleKey } from '../server/key-directory'
import { currentPeriods, usageReportsOf, utcDay } from './usage-source'

/** A team on the teams page: what it allows, its keys, its spend against its budgets. */
export type TeamRow = {
  id: string
  name: string
  /** `config` teams are read-only here. */
  source: 'config' | 'postgres' | 'memory'
  groups: string[] | null
  quotaTokens: number | null
  limits: Record<string, number>
  /** Each budget with what the team spent in its current period (nano-USD; lifetime: unknown). */
  budgets: Array<MoneyBudget & { spentNanoUsd: number | null; leftNanoUsd: number | null }>
  keys: Array<Pick<ConsoleKey, 'id' | 'name' | 'masked' | 'status' | 'source'>>
  today: UsageTotals | null
  month: UsageTotals | null
  /** Spend and tokens per UTC day over the last 30 days, oldest first. */
  days: Array<{ day: string; costNanoUsd: number; totalTokens: number }>
}

const dayMs = 86_400_000

/**
 * `GET <mount>/api/teams` (admins and viewers): every team — the team admin's and the config's
 * teams its keys name — with its keys, its spend today and this month against its budgets, its
 * usage per day over 30 days, and the organisation's month broken down by team. One usage read
 * per team (a team's span), plus one for the organisation. Key holders are refused: they see
 * their own key only.
 */
export async function teamsPage(call: ConsoleRequest) {
  const { deps, user } = call
  if (user.role === 'key') {
    throw new ConsoleError(403, 'The teams page is for admins and viewers: you see your own key.')
  }
  const { today, monthStart } = currentPeriods(deps.now())
  const since = [monthStart, utcDay(Date.parse(today) - 29 * dayMs)].sort()[0]!
  const entries = await listDirectory(deps)
  const teams = await allTeams(
    deps,
    entries.map((entry) => entry.key.team),
  )
  const reports = usageReportsOf(deps)
  const [perTeam, organisation] = await Promise.all([
    Promise.all(
      teams.map((team) =>
        reports === undefined
          ? undefined
          : reports.usageReport({ since, until: today, team: team.team.id }),
      ),
    ),
    reports?.usageReport({ since: monthStart, until: today }),
  ])
  const rows: TeamRow[] = teams.map(({ team, source }, index) => {
    const report = perTeam[index]
    const sum = (from: string) =>
      report?.days
        .filter((row) => row.day >= from)
        .reduce<UsageTotals>((totals, row) => {
          for (const name of Object.keys(totals) as Array<keyof UsageTotals>)
            totals[name] += row[name]
          return totals
        }, emptyTotals()) ?? null
    const todayTotals = sum(today)
    const monthTotals = sum(monthStart)
    return {
      id: team.id,
      name: team.name ?? team.id,
      source,
      groups: team.groups === undefined ? null : [...team.groups],
      quotaTokens: team.quotaTokens ?? null,
      limits: { ...(team.limits ?? {}) } as Record<string, number>,
      budgets: (team.budgets ?? []).map((budget) => {
        const spent =
          budget.per === 'day'
            ? (todayTotals?.costNanoUsd ?? null)
            : budget.per === 'month'
              ? (monthTotals?.costNanoUsd ?? null)
              : null
        return {
          ...budget,
          spentNanoUsd: spent,
          leftNanoUsd: spent === null ? null : Math.max(0, usdToNano(budget.usd) - spent),
        }
      }),
      keys: entries
        .filter((entry) => entry.key.team === team.id)
        .map(({ key }) => ({
          id: key.id,
          name: key.name,
          masked: key.masked,
          status: key.status,
          source: key.source,
        })),
      today: todayTotals,
      month: monthTotals,
      days: lastDays(today, 30).map((day) => {
        const found = report?.days.find((row) => row.day === day)
        return { day, costNanoUsd: found?.costNanoUsd ?? 0, totalTokens: found?.totalTokens ?? 0 }
      }),
    }
  })
  const inTeams = rows.reduce((total, row) => total + (row.month?.costNanoUsd ?? 0), 0)
  return {
    canEdit: user.role === 'admin' && deps.teams !== undefined,
    canCreateKeys: user.role === 'admin' && deps.keys !== undefined,
    store: deps.teams?.kind ?? null,
    periods: { today, monthStart },
    teams: rows,
    organisation:
      organisation === undefined
        ? null
        : {
            month: organisation.totals,
            byTeam: rows.map((row) => ({
              team: row.id,
              name: row.name,
              costNanoUsd: row.month?.costNanoUsd ?? 0,
              requests: row.month?.requests ?? 0,
            })),
            noTeamNanoUsd: Math.max(0, organisation.totals.costNanoUsd - inTeams),
          },
  }
}

/** The team admin's teams, then the config's teams that keys name, each once, by id. */
async function allTeams(
  deps: ConsoleDeps,
  named: ReadonlyArray<string | null>,
): Promise<Array<{ team: Team; source: TeamRow['source'] }>> {
  const stored = (await deps.teams?.list()) ?? []
  const found: Array<{ team: Team; source: TeamRow['source'] }> = stored.map((team) => ({
    team: asTeam(team),
    source: deps.teams!.kind,
  }))
  const seen = new Set(found.map((item) => item.team.id))
  for (const id of named) {
    if (id === null || seen.has(id)) continue
    seen.add(id)
    const team = await deps.gateway.runtime.teams?.lookup(id)
    if (team !== undefined) found.push({ team, source: 'config' })
  }
  return found
}

function asTeam(team: StoredTeam): Team {
  return {
    id: team.id,
    name: team.name ?? team.id,
    groups: team.groups,
    quotaTokens: team.quotaTokens,
    limits: team.limits,
    budgets: team.budget,
  }
}

/** `POST <mount>/api/teams` (admins): creates a team. */
export async function createTeamCall(call: ConsoleRequest, body: Record<string, unknown>) {
  const admin = teamAdminOf(call)
  const id = body.id
  if (typeof id === 'string' && (await call.deps.gateway.runtime.teams?.lookup(id)) !== undefined) {
    throw new ConsoleError(409, `Team "${id}" exists already (in the config or the team store).`)
  }
  return { team: await edit(() => admin.create(body as CreateTeamInput)) }
}

/** `PATCH <mount>/api/teams/<id>` (admins): changes a team's name, limits or budgets. */
export async function updateTeamCall(
  call: ConsoleRequest,
  id: string,
  body: Record<string, unknown>,
) {
  const admin = teamAdminOf(call)
  const updated = await edit(() => admin.update(id, body as UpdateTeamInput))
  if (updated === undefined) {
    throw new ConsoleError(404, `No team "${id}" here (a team of the config is changed there).`)
  }
  return { team: updated }
}

function teamAdminOf(call: ConsoleRequest) {
  if (call.user.role !== 'admin') throw new ConsoleError(403, 'Only admins change teams.')
  const admin = call.deps.teams
  if (admin === undefined) {
    throw new ConsoleError(
      409,
      'Teams are read-only here: this console has no team store to write to (configure state.postgres).',
    )
  }
  return admin
}

async function edit<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof KeyAdminError) throw new ConsoleError(400, error.message)
    throw error
  }
}

/** The last `count` UTC days up to `today`, oldest first. */
function lastDays(today: string, count: number): string[] {
  const end = Date.parse(today)
  return Array.from({ length: count }, (_, index) => utcDay(end - (count - 1 - index) * dayMs))
}
