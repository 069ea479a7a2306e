import { parseArgs } from 'node:util'
import { migrate } from '../../postgres/migrate'
import { databaseOptions, databaseUsage, openCommandDatabase, UsageError } from './cli-database'

/** Usage of `model-gateway migrate`. */
export const migrateUsage = `Usage: model-gateway migrate [--config <file> | --database <url>] [--prefix mg] [--schema s] [--json]

Creates or upgrades model-gateway's tables. Safe to run twice, and from several instances at once.

${databaseUsage}`

/** `model-gateway migrate`: applies the schema migrations and says what it did. */
export async function runMigrate(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: databaseOptions, strict: true })
  if (values.help) {
    console.log(migrateUsage)
    return 0
  }
  const database = await openCommandDatabase(values)
  try {
    const result = await migrate(database.postgres)
    if (values.json) console.log(JSON.stringify(result))
    else if (result.applied.length === 0) {
      console.log(`The schema is up to date (version ${result.version}).`)
    } else {
      for (const step of result.applied) console.log(`Applied ${step.version}: ${step.name}`)
      console.log(`The schema is at version ${result.version}.`)
    }
    return 0
  } finally {
    await database.close()
  }
}

export { UsageError }
