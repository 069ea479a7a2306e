import type { PostgresClient } from './client'
import type { Tables } from './tables'

const dayMs = 86_400_000

/**
 * The sum of a column (tokens or nano-USD) over a key's rows that ended at or after `sinceMs`: the
 * daily rollup for whole UTC days and the ledger for the part of a day before them. What the
 * ledger's `usedSince` and `spentSince` answer, for budgets to re-seed from.
 */
export async function sumSince(
  client: PostgresClient,
  tables: Tables,
  column: 'total_tokens' | 'cost_nano',
  keyId: string,
  sinceMs: number,
): Promise<number> {
  const dayStart = Math.floor(sinceMs / dayMs) * dayMs
  const wholeFrom = dayStart === sinceMs ? dayStart : dayStart + dayMs
  const { rows } = await client.query(
    `SELECT (
       coalesce((SELECT sum(${column}) FROM ${tables.daily}
                 WHERE key_id = $1 AND day >= $2::date), 0)
     + coalesce((SELECT sum(${column}) FROM ${tables.ledger}
                 WHERE key_id = $1 AND ended_at >= $3::timestamptz
                   AND ended_at < $4::timestamptz), 0)
     )::text AS used`,
    [
      keyId,
      new Date(wholeFrom).toISOString().slice(0, 10),
      new Date(sinceMs).toISOString(),
      new Date(wholeFrom).toISOString(),
    ],
  )
  return Number(rows[0]?.used ?? 0)
}
