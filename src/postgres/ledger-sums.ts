import type { MeteredSubjectRef } from '../usage/usage-meter'
import type { PostgresClient } from './client'
import type { Tables } from './tables'

const dayMs = 86_400_000

/**
 * The sum of a column (tokens or nano-USD) over the rows of a key — or of another metered subject:
 * a team, the organisation, an end user of a key — that ended at or after `sinceMs`: a daily
 * rollup for whole UTC days and the ledger for the part of a day before them. What the ledger's
 * `usedSince` and `spentSince` answer, for budgets to re-seed from.
 *
 * - a key: the per-key rollup, and its ledger rows (index `key_id, ended_at`);
 * - a team: the per-team rollup, and the ledger rows that carry the team (index `team, ended_at`,
 *   schema version 7);
 * - the organisation: every row of the per-key rollup and of the ledger's part-day (index
 *   `ended_at`, version 7);
 * - an end user: its key's ledger rows that carry it, for the whole span (end users have no
 *   rollup: there may be many), through the index `key_id, end_user, ended_at` (version 7).
 */
export async function sumSince(
  client: PostgresClient,
  tables: Tables,
  column: 'total_tokens' | 'cost_nano',
  keyId: string,
  sinceMs: number,
  subject?: MeteredSubjectRef,
): Promise<number> {
  if (subject?.kind === 'end-user') {
    const { rows } = await client.query(
      `SELECT coalesce(sum(${column}), 0)::text AS used FROM ${tables.ledger}
       WHERE key_id = $1 AND end_user = $2 AND ended_at >= $3::timestamptz`,
      [subject.keyId ?? keyId, subject.id, new Date(sinceMs).toISOString()],
    )
    return Number(rows[0]?.used ?? 0)
  }
  const [rollup, rollupWhere, ledgerWhere, params] =
    subject?.kind === 'team'
      ? [tables.teamDaily, 'team = $1 AND ', 'team = $1 AND ', [subject.id]]
      : subject?.kind === 'organisation'
        ? [tables.daily, '', '', []]
        : [tables.daily, 'key_id = $1 AND ', 'key_id = $1 AND ', [keyId]]
  const at = params.length
  const dayStart = Math.floor(sinceMs / dayMs) * dayMs
  const wholeFrom = dayStart === sinceMs ? dayStart : dayStart + dayMs
  const { rows } = await client.query(
    `SELECT (
       coalesce((SELECT sum(${column}) FROM ${rollup}
                 WHERE ${rollupWhere}day >= $${at + 1}::date), 0)
     + coalesce((SELECT sum(${column}) FROM ${tables.ledger}
                 WHERE ${ledgerWhere}ended_at >= $${at + 2}::timestamptz
                   AND ended_at < $${at + 3}::timestamptz), 0)
     )::text AS used`,
    [
      ...params,
      new Date(wholeFrom).toISOString().slice(0, 10),
      new Date(sinceMs).toISOString(),
      new Date(wholeFrom).toISOString(),
    ],
  )
  return Number(rows[0]?.used ?? 0)
}
