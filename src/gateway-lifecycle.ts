/** Options of the gateway's `close()`. */
export type GatewayCloseOptions = {
  /**
   * Longest wait for requests still in flight (streams included) before the parts are closed
   * anyway (default 30000 ms). `serveGateway` closes its connections first, so that in-flight
   * streams end, as aborted, at once.
   */
  timeoutMs?: number
}

/**
 * Tracks what a gateway must finish before it can stop: requests in flight, and work they left
 * running (a usage settle). `close()` refuses new requests, waits for them, tells every part that
 * has a `drain` method (a meter retrying settles), waits for the work left running, then closes
 * every part that has a `close` method, such as a usage ledger that writes its queue.
 */
export function createGatewayLifecycle(parts: readonly object[]) {
  let inFlight = 0
  let closing: Promise<void> | undefined
  const background = new Set<Promise<unknown>>()
  const idleWaiters: Array<() => void> = []
  return {
    /** Requests begun and not yet ended: the count `maxInFlight` limits. */
    get inFlight(): number {
      return inFlight
    },
    /** True once `close()` was called: new requests are refused. */
    get closing(): boolean {
      return closing !== undefined
    },
    begin(): void {
      inFlight += 1
    },
    end(): void {
      inFlight -= 1
      if (inFlight === 0) for (const wake of idleWaiters.splice(0)) wake()
    },
    /** Keeps a promise that outlives its response (a settle) from being cut off by `close()`. */
    track(promise: Promise<unknown>): void {
      background.add(promise)
      void promise.finally(() => background.delete(promise)).catch(() => undefined)
    },
    close(options: GatewayCloseOptions = {}): Promise<void> {
      closing ??= (async () => {
        const timeoutMs = options.timeoutMs ?? 30_000
        if (inFlight > 0) {
          let timer: ReturnType<typeof setTimeout> | undefined
          const idle = new Promise<void>((resolve) => idleWaiters.push(resolve))
          const timedOut = new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), timeoutMs)
          })
          if ((await Promise.race([idle, timedOut])) === 'timeout') {
            console.error(
              `[model-gateway] close(): ${inFlight} requests still in flight after ${timeoutMs} ms; closing anyway`,
            )
          }
          clearTimeout(timer)
        }
        // Work left running ends sooner when its part is told the gateway is closing.
        for (const part of parts) drainPart(part)
        await Promise.allSettled([...background])
        const results = await Promise.allSettled(parts.map(closePart))
        for (const result of results) {
          if (result.status === 'rejected') {
            console.error('[model-gateway] close(): a part failed to close:', result.reason)
          }
        }
      })()
      return closing
    },
  }
}

/** Tells a part with a `drain` method (a meter retrying settles) that the gateway is closing. */
function drainPart(part: object): void {
  const drain = (part as { drain?: unknown }).drain
  try {
    if (typeof drain === 'function') (drain as () => unknown).call(part)
  } catch (error) {
    console.error('[model-gateway] close(): a part failed to drain:', error)
  }
}

/** Closes a part that has a `close` method (a ledger, a listener); others have nothing to release. */
async function closePart(part: object): Promise<void> {
  const close = (part as { close?: unknown }).close
  if (typeof close === 'function') await (close as () => unknown).call(part)
}
