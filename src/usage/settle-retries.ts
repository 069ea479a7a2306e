import type { SettleResult } from './usage-meter'

/**
 * Waits for what a settle left retrying in the background (`SettleResult.retrying`), if anything,
 * handing each later result to `onResult` (its alerts are as real as the first answer's). Never
 * rejects: a failure goes to `onError`. Callers write the ledger row after it, so that a budget
 * re-seeded from the ledger never counts a request the store is still to count.
 */
export async function settleRetries(
  result: unknown,
  onResult: (result: SettleResult | undefined) => void,
  onError: (error: unknown) => void,
): Promise<void> {
  let next = (result as SettleResult | undefined)?.retrying
  while (next !== undefined) {
    let later: SettleResult | undefined
    try {
      later = await next
    } catch (error) {
      onError(error)
      return
    }
    onResult(later)
    next = later?.retrying
  }
}
