import type { LimitState } from '../../usage/usage-meter'
import { emptyTotals, type UsageReport, type UsageTotals } from '../../usage/usage-report'
import { moneyBudgetsOf } from '../../usage/key-limits'
import { baseAddress, seesEveryKey, type ConsoleRequest } from '../server/context'
import { listDirectory, type ConsoleKey, type DirectoryKey } from '../server/key-directory'
import { organisationPanel } from './organisation'
import { currentPeriods, usageReportsOf } from './usage-source'

/** A key's row on the keys page: the key, its usage today, this month and in all, its limits. */
export type KeyRow = ConsoleKey & {
  usage: { today: UsageTotals | null; month: UsageTotals | null; lifetime: MeterTotals | null }
  /**
   * The state of each limit the meter enforces for the key, budgets with what is used; money
   * budgets (`usdPerDay`, `usdPerMonth`, `usdLifetime`) count nano-USD.
   */
  limitStates: LimitState[]
  /** Epoch ms of the key's last request, when known. */
  lastUsedAt: number | null
}

type MeterTotals = {
  requests: number
  totalTokens: number
  inputTokens: number
  outputTokens: number
}

/**
 * `GET <mount>/api/keys`: the keys page in one answer — the base address, every key the user may
 * see with its usage today and this month (two reads of the ledger's rollup for all keys, not one
 * per key), its last use and limits, and for admins and viewers the organisation's panel.
 */
export async function listKeysPage(call: ConsoleRequest) {
  const { deps, user } = call
  const { today, monthStart } = currentPeriods(deps.now())
  let entries = await listDirectory(deps)
  if (user.role === 'key') entries = entries.filter((entry) => entry.key.id === user.keyId)
  const keyId = user.role === 'key' ? user.keyId : undefined
  const reports = usageReportsOf(deps)
  const [todayReport, monthReport, lastUsed, lifetimes] = await Promise.all([
    reports?.usageReport({ since: today, until: today, keyId }),
    reports?.usageReport({ since: monthStart, until: today, keyId }),
    reports?.lastUsed(entries.map((entry) => entry.key.id)),
    Promise.all(entries.map((entry) => meterSummary(call, entry, reports !== undefined))),
  ])
  const rows: KeyRow[] = entries.map((entry, index) => ({
    ...entry.key,
    usage: {
      today: totalsOf(todayReport, entry.key.id, reports !== undefined),
      month: totalsOf(monthReport, entry.key.id, reports !== undefined),
      lifetime: lifetimes[index]?.totals ?? null,
    },
    limitStates: lifetimes[index]?.limits ?? [],
    lastUsedAt: lastUsed?.get(entry.key.id) ?? null,
  }))
  return {
    baseUrl: baseAddress(deps, call.url),
    canEdit: user.role === 'admin' && deps.keys !== undefined,
    store: deps.keys?.kind ?? null,
    usageSource: reports === undefined ? 'meter' : 'ledger',
    periods: { today, monthStart },
    /** The groups a key may be given (admins' forms). */
    groups: (await deps.gateway.runtime.registry.list()).map((group) => group.id),
    keys: rows,
    organisation: seesEveryKey(user)
      ? await organisationPanel(deps, { today: todayReport, month: monthReport }, today)
      : null,
  }
}

function totalsOf(
  report: UsageReport | undefined,
  keyId: string,
  known: boolean,
): UsageTotals | null {
  if (!known) return null
  const found = report?.keys.find((row) => row.keyId === keyId)
  if (found === undefined) return emptyTotals()
  const { keyId: _id, ...totals } = found
  return totals
}

/**
 * The meter's totals and limit states of an active key; a failing meter leaves them unknown. With
 * a ledger that reports, only keys with limits, a quota or a budget are asked (their states are
 * the meter's alone): a shared meter is not asked once per key of a long list for nothing.
 */
async function meterSummary(call: ConsoleRequest, entry: DirectoryKey, ledger: boolean) {
  if (entry.key.status !== 'active') return undefined
  const { record } = entry
  const limited =
    Object.keys(record.limits ?? {}).length > 0 ||
    record.quota?.tokens !== undefined ||
    moneyBudgetsOf(record.budget) !== undefined
  if (ledger && !limited) return undefined
  try {
    const budgets = moneyBudgetsOf(entry.record.budget)
    const summary = await call.deps.gateway.runtime.meter.summary(entry.record.id, {
      limits: entry.record.limits,
      quotaTokens: entry.record.quota?.tokens,
      ...(budgets === undefined ? {} : { budgets }),
    })
    return {
      totals: {
        requests: summary.requests,
        totalTokens: summary.totalTokens,
        inputTokens: summary.inputTokens,
        outputTokens: summary.outputTokens,
        costNanoUsd: summary.costNanoUsd ?? null,
        unpricedRequests: summary.unpricedRequests ?? null,
      },
      limits: [...(summary.limits ?? [])],
    }
  } catch {
    return undefined
  }
}
