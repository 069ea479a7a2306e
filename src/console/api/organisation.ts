import { nanoToUsd } from '../../pricing/price-units'
import type { UsageReport, UsageTotals } from '../../usage/usage-report'
import type { ConsoleDeps } from '../server/context'
import { usageReportsOf } from './usage-source'

/**
 * The organisation's panel on the keys page: today's and this month's usage and spend (all
 * keys), the budget with what is spent and left of it, and the prepaid balance with what is left.
 * `null` parts are not configured; spend is `null` where no ledger reports it.
 */
export type OrganisationPanel = {
  today: UsageTotals | null
  month: UsageTotals | null
  budget: {
    usd: number
    per: 'day' | 'month'
    spentUsd: number | null
    leftUsd: number | null
  } | null
  balance:
    | { usd: number; since: string; spentUsd: number | null; leftUsd: number | null }
    | { usd: number; asOf: string | null; leftUsd: number }
    | null
}

/**
 * The organisation's usage and spend (all keys), against the budget or prepaid balance the
 * operator supplies. Admins and viewers see it; key holders never do: the organisation's
 * balance is the operator's business, seen in the console, never through a client key. A balance
 * callback that fails is logged and the panel shows no balance rather than failing the page.
 */
export async function organisationPanel(
  deps: ConsoleDeps,
  reports: { today: UsageReport | undefined; month: UsageReport | undefined },
  today: string,
): Promise<OrganisationPanel> {
  const options = deps.organisation
  const source = usageReportsOf(deps)
  const spent = (report: UsageReport | undefined) =>
    report === undefined ? null : nanoToUsd(report.totals.costNanoUsd)
  const left = (usd: number, used: number | null) => (used === null ? null : round(usd - used))

  let budget: OrganisationPanel['budget'] = null
  if (options?.budgetUsd !== undefined) {
    const per = options.budgetPer ?? 'month'
    const used = spent(per === 'day' ? reports.today : reports.month)
    budget = { usd: options.budgetUsd, per, spentUsd: used, leftUsd: left(options.budgetUsd, used) }
  }

  let balance: OrganisationPanel['balance'] = null
  const supplied = options?.balance
  if (typeof supplied === 'function') {
    try {
      const answer = await supplied()
      balance = { usd: answer.usd, asOf: answer.asOf ?? null, leftUsd: answer.usd }
    } catch (error) {
      console.error('[model-gateway] console: the organisation balance callback failed:', error)
    }
  } else if (supplied !== undefined) {
    const since =
      supplied.since > today
        ? undefined
        : await source?.usageReport({ since: supplied.since, until: today })
    const used = supplied.since > today ? 0 : spent(since)
    balance = {
      usd: supplied.usd,
      since: supplied.since,
      spentUsd: used,
      leftUsd: left(supplied.usd, used),
    }
  }
  return {
    today: source === undefined ? null : (reports.today?.totals ?? null),
    month: source === undefined ? null : (reports.month?.totals ?? null),
    budget,
    balance,
  }
}

/** USD to the nano-dollar, without float noise. */
function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9
}
