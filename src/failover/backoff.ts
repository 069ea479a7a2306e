import type { ClientSignal } from '../http/gateway-request'
import type { RetryPolicy } from './retry-policy'

/**
 * The wait before retry number `retry` (1 for the first): exponential from `backoffMs`, capped at
 * `maxBackoffMs`, with "equal jitter" (a random point in its upper half), so that the retries of
 * requests that failed together do not arrive together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (retry - 1))
  return ceiling / 2 + random() * (ceiling / 2)
}

/**
 * Waits `ms`, or less when `signal` aborts first.
 *
 * @returns false when the signal aborted (the client left), else true
 */
export function waitUnlessAborted(ms: number, signal: ClientSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  if (ms <= 0) return Promise.resolve(true)
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
