import type { UsageReport, UsageTotals } from '../../usage/usage-report'
import type { ConsoleDeps } from '../server/context'
import { usageReportsOf } from './usage-source'

/** The organisation's panel on the keys page: this month's usage, and its budget or balance. */
export type OrganisationPanel = {
  month: UsageTotals | null
  budget: { usd: number; per: 'day' | 'month' } | null
  balance: { usd: number; since?: string; asOf?: string } | null
}

/**
 * The organisation's usage this month (all keys), with the budget or prepaid balance the
 * operator supplies. Admins and viewers see it; key holders never do (the spec's "organisation
 * balance is viewed in the console", not through a key).
 */
export async function organisationPanel(
  deps: ConsoleDeps,
  monthReport: UsageReport | undefined,
  _today: string,
): Promise<OrganisationPanel> {
  const options = deps.organisation
  const balance = options?.balance
  let supplied: OrganisationPanel['balance'] = null
  if (typeof balance === 'function') {
    try {
      supplied = await balance()
    } catch (error) {
      console.error('[model-gateway] console: the organisation balance callback failed:', error)
    }
  } else if (balance !== undefined) supplied = { usd: balance.usd, since: balance.since }
  return {
    month: usageReportsOf(deps) === undefined ? null : (monthReport?.totals ?? null),
    budget:
      options?.budgetUsd === undefined
        ? null
        : { usd: options.budgetUsd, per: options.budgetPer ?? 'month' },
    balance: supplied,
  }
}
