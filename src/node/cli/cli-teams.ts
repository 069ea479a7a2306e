import { parseArgs } from 'node:util'
import { listKeys } from '../../postgres/key-admin'
import type { StoredTeam } from '../../postgres/stored-team'
import { createTeam, getTeam, listTeams, updateTeam } from '../../postgres/team-admin'
import type { CreateTeamInput, UpdateTeamInput } from '../../postgres/team-input'
import { teamUsage } from '../../postgres/team-usage'
import {
  databaseOptions,
  databaseUsage,
  openCommandDatabase,
  UsageError,
  type CommandDatabase,
} from './cli-database'
import { limitOptions, readDay, readLimitChanges, type FlagValues } from './cli-limit-flags'
import { budgetStandings, teamJson, teamsTable, teamUsageText } from './cli-teams-format'

/** Usage of `model-gateway teams`. */
export const teamsUsage = `Usage: model-gateway teams <command> [options]

  create <id>            create a team; its keys must then fit its limits too
  list                   list the teams, with how many keys each has
  update <id>            change a team's name, groups, quota, limits or budgets
  usage <id>             a team's usage and spend per day, model and key, against its budgets
                         [--since YYYY-MM-DD] [--until YYYY-MM-DD]

Keys join a team with "model-gateway keys create --team <id>" (or keys update <id> --team <id>).

create and update take:
  --name <text>
  --groups a,b                      the groups the team's keys may use (update: --all-groups)
  --quota-tokens <n>                lifetime token allowance of the team's keys together
  --requests-per-minute <n>         --input-tokens-per-minute <n>   --output-tokens-per-minute <n>
  --concurrency <n>                 --tokens-per-day <n>            --tokens-per-month <n>
  --budget <usd>/<day|month|lifetime>[,…]   money budgets, e.g. --budget 500/month
  --budget-alert-at <share>         call onBudgetAlert at this share of each budget (0.8 = 80 %)
  update only: "none" clears a number or the budgets

${databaseUsage}`

/** `model-gateway teams …`: team administration against the database. */
export async function runTeams(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { ...databaseOptions, ...limitOptions },
    allowPositionals: true,
    strict: true,
  })
  const [command, id, ...extra] = positionals
  if (values.help || command === undefined) {
    console.log(teamsUsage)
    return command === undefined && !values.help ? 2 : 0
  }
  if (!['create', 'list', 'update', 'usage'].includes(command)) {
    throw new UsageError(`unknown command "teams ${command}"`)
  }
  const needsId = command !== 'list'
  if (needsId && id === undefined) throw new UsageError(`teams ${command} needs a team id`)
  if (extra.length > 0 || (!needsId && id !== undefined)) {
    throw new UsageError(`unexpected argument "${[id, ...extra].filter(Boolean).join(' ')}"`)
  }
  const database = await openCommandDatabase(values)
  try {
    return await runTeamCommand(command, id, values, database)
  } finally {
    await database.close()
  }
}

async function runTeamCommand(
  command: string,
  id: string | undefined,
  values: FlagValues,
  database: CommandDatabase,
): Promise<number> {
  const json = values.json === true
  const { postgres } = database
  switch (command) {
    case 'create': {
      if (database.teamIds?.has(id!) === true) {
        throw new UsageError(`team "${id}" is defined in the config: change it there`)
      }
      const input = { id, ...readLimitChanges(values, false, database, 'teams') }
      const team = await createTeam(postgres, input as CreateTeamInput)
      console.log(
        json
          ? JSON.stringify(teamJson(team, []))
          : `Created team ${team.id}:\n${teamsTable([team], [])}`,
      )
      return 0
    }
    case 'list': {
      const [teams, keys] = await Promise.all([listTeams(postgres), listKeys(postgres)])
      if (json) {
        const keysOf = (team: StoredTeam) => keys.filter((key) => key.team === team.id)
        console.log(JSON.stringify(teams.map((team) => teamJson(team, keysOf(team)))))
      } else if (teams.length === 0) console.log('No teams.')
      else console.log(teamsTable(teams, keys))
      return 0
    }
    case 'update': {
      const changes = readLimitChanges(values, true, database, 'teams') as UpdateTeamInput
      if (Object.keys(changes).length === 0) throw new UsageError('teams update needs a change')
      const updated = await updateTeam(postgres, id!, changes)
      if (updated === undefined) return notFound(id!, json)
      const keys = await listKeys(postgres, { team: updated.id })
      console.log(
        json
          ? JSON.stringify(teamJson(updated, keys))
          : `Updated team ${updated.id}:\n${teamsTable([updated], keys)}`,
      )
      return 0
    }
    case 'usage': {
      const team = await getTeam(postgres, id!)
      if (team === undefined) return notFound(id!, json)
      const now = Date.now()
      const today = new Date(now).toISOString().slice(0, 10)
      const [report, month] = await Promise.all([
        teamUsage(postgres, id!, {
          since: readDay(values.since, '--since'),
          until: readDay(values.until, '--until'),
        }),
        teamUsage(postgres, id!, { since: new Date(`${today.slice(0, 8)}01T00:00:00Z`) }),
      ])
      const standings = budgetStandings(team.budget, month, today)
      if (json) console.log(JSON.stringify({ ...report, team: teamJson(team), budgets: standings }))
      else console.log(teamUsageText(team, report, standings))
      return 0
    }
  }
  throw new UsageError(`unknown command "teams ${command}"`)
}

function notFound(id: string, json: boolean): number {
  if (json) console.log(JSON.stringify({ error: `no team with id "${id}"` }))
  else console.error(`model-gateway: no team with id "${id}"`)
  return 1
}
