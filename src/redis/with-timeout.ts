import { yieldToIo } from '../internal/yield-to-io'

/** Thrown when a store call takes longer than its bound. */
export class StoreTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The store did not answer within ${timeoutMs} ms.`)
    this.name = 'StoreTimeoutError'
  }
}

/**
 * Bounds a store call: rejects with `StoreTimeoutError` after `timeoutMs`. The call itself is not
 * cancelled (drivers have no way to), so its late outcome is swallowed here rather than surfacing
 * as an unhandled rejection.
 *
 * The bound is on the store, not on this process's event loop. A timer fires in the loop's timers
 * phase, before the poll phase reads the sockets, so a reply that arrived while the loop was busy
 * would lose to its own timeout; the timer therefore lets pending I/O be read first. And when the
 * timer itself fired late by more than the bound — the loop was stalled, so the store never had its
 * window — the call gets one more window before it is declared down. Without this, a burst that
 * lags the loop by 200 ms turns into 503s and a "store down" state while Redis is answering in
 * well under a millisecond (seen in the two-process test on a loaded machine).
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const arm = (window: number, retriesLeft: number): void => {
      const armedAt = Date.now()
      timer = setTimeout(() => {
        const lateBy = Date.now() - armedAt - window
        void Promise.resolve(yieldToIo()).then(() => {
          if (settled) return
          if (retriesLeft > 0 && lateBy > window) arm(window, retriesLeft - 1)
          else {
            settled = true
            reject(new StoreTimeoutError(timeoutMs))
          }
        })
      }, window)
    }
    arm(timeoutMs, 1)
    promise.then(
      (value) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
