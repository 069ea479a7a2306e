import { yieldToIo } from '../internal/yield-to-io'
import { watchLoopLag } from './loop-lag'

/** Thrown when a store call takes longer than its bound. */
export class StoreTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The store did not answer within ${timeoutMs} ms.`)
    this.name = 'StoreTimeoutError'
  }
}

/** However busy the loop, a silent store is declared down after this many bounds of wall time. */
const wallTimeBounds = 10

/**
 * Bounds a store call: rejects with `StoreTimeoutError` once the store has had `timeoutMs` to
 * answer. The call itself is not cancelled (drivers have no way to), so its late outcome is
 * swallowed here rather than surfacing as an unhandled rejection.
 *
 * The bound is on the store, not on this process's event loop (ADR 0038). A reply that arrived
 * while the loop was busy cannot be read until the loop is free, so the wait counted is the
 * elapsed time less the loop's lag over it (`watchLoopLag`); and when the timer fires, pending
 * I/O is read first (a timer runs before the poll phase that reads the sockets). Without this, a
 * burst that keeps the loop busy for 200 ms turned into 503s and a "store down" state while Redis
 * answered in well under a millisecond (101 of a 200-request burst on a loaded machine). A store
 * that stays silent is still declared down: after `timeoutMs` of loop-free waiting, or after ten
 * times `timeoutMs` of wall time whatever the loop did.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const lag = watchLoopLag()
    const startedAt = Date.now()
    const arm = (window: number): void => {
      timer = setTimeout(() => {
        void Promise.resolve(yieldToIo()).then(() => {
          if (settled) return
          const elapsed = Date.now() - startedAt
          const waited = elapsed - lag.lagSince()
          if (waited < timeoutMs && elapsed < wallTimeBounds * timeoutMs) {
            arm(Math.max(1, timeoutMs - waited))
            return
          }
          settled = true
          lag.done()
          reject(new StoreTimeoutError(timeoutMs))
        })
      }, window)
    }
    arm(timeoutMs)
    promise.then(
      (value) => {
        if (settled) return
        settled = true
        lag.done()
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        if (settled) return
        settled = true
        lag.done()
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
