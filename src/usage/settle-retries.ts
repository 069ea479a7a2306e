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

/**
 * The most an answer's last bytes wait for its settle. The Redis meter bounds its own calls at
 * 200 ms; a meter of the application's that hangs must not hold every answer: past this the
 * answer goes out, and the settle still completes (and the ledger is written) in the background.
 */
const maxSettleWaitMs = 1_000

/** `settle`, or a timer of `maxSettleWaitMs`, whichever ends first. */
export function boundedWait(settle: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, maxSettleWaitMs)
  })
  return Promise.race([settle, timeout]).finally(() => clearTimeout(timer))
}
