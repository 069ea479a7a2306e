/**
 * How a token budget (`tokensPerDay`, `tokensPerMonth`, the lifetime `quota.tokens`) admits a
 * request, given what the period has spent and what the key's requests in flight hold:
 * - the request's whole estimate fits in what is left: admitted, holding the estimate;
 * - it does not fit, but nothing is in flight on the budget: admitted alone, holding the whole
 *   remainder — so a quota smaller than one output allowance, or the last tokens of a budget, still
 *   serve one request at a time;
 * - it does not fit and requests are in flight: refused until they end (`held`), a short wait;
 * - nothing is left of the period's budget: refused until the period ends (`spent`).
 *
 * So at most one request at a time runs on a remainder smaller than its estimate, and a budget is
 * overshot by at most what the requests in flight at the last admission used beyond their holds
 * (each held its whole estimate, bar that one). The Redis scripts apply the same rule
 * (`src/redis/lua/usage-scripts.ts`).
 */
export type BudgetAdmission =
  { admitted: true; hold: number } | { admitted: false; why: 'spent' | 'held' }

/** The budget rule above, for one budget. */
export function admitOnBudget(
  limit: number,
  spent: number,
  held: number,
  estimate: number,
): BudgetAdmission {
  if (spent >= limit) return { admitted: false, why: 'spent' }
  const left = limit - spent - held
  if (estimate <= left) return { admitted: true, hold: estimate }
  if (held <= 0) return { admitted: true, hold: left }
  return { admitted: false, why: 'held' }
}

/** How long a request refused by a held budget is told to wait: when holds end is unknown. */
export const heldBudgetRetryMs = 1000
