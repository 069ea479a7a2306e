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
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreTimeoutError(timeoutMs)), timeoutMs)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
