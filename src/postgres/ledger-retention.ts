import type { PostgresOptions } from './client'
import { resolveTables } from './tables'

/**
 * Drops the ledger's monthly partitions before a month (`YYYY-MM`): retention by `DROP TABLE`,
 * which frees the space at once and leaves no dead rows to vacuum, unlike `DELETE`. The daily
 * rollup is kept, so `keys usage` and budgets re-seeded from it still see those months' totals.
 *
 * @returns the months dropped, oldest first
 * @example
 * await dropLedgerMonths({ client: pool }, { before: '2026-01' }) // keeps January 2026 onwards
 */
export async function dropLedgerMonths(
  options: PostgresOptions,
  { before }: { before: string },
): Promise<string[]> {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(before)) {
    throw new Error(`Expected a month as YYYY-MM, got "${before}".`)
  }
  const tables = resolveTables(options)
  const { rows } = await options.client.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass($1) ORDER BY c.relname`,
    [tables.ledger],
  )
  const pattern = new RegExp(`^${tables.prefix}_usage_ledger_p(\\d{4})(\\d{2})$`)
  const dropped: string[] = []
  for (const row of rows) {
    const match = pattern.exec(String(row.name))
    if (match === null) continue
    const month = `${match[1]}-${match[2]}`
    if (month >= before) continue
    await options.client.query(`DROP TABLE IF EXISTS ${tables.qualify(String(row.name))}`)
    dropped.push(month)
  }
  return dropped
}
