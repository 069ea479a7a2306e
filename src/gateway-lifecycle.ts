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
 * running (a usage settle). `close()` refuses new requests, waits for them, tells the usage meter
 * (`drain`: a meter retrying settles gives up), waits for the work left running, then closes
 * every part that has a `close` method, such as a usage ledger that writes its queue.
 */
export function createGatewayLifecycle(
  parts: readonly object[],
  /** The usage meter, whose `drain()` (if it has one) `close()` calls before waiting. */
  drain?: { drain?: (() => void) | undefined },
) {
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
        // Work left running ends sooner when the meter is told the gateway is closing.
        drainPart(drain)
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

/** Tells the meter, if it has a `drain` method, that the gateway is closing; never throws. */
function drainPart(part: { drain?: (() => void) | undefined } | undefined): void {
  try {
    const drained: unknown = part?.drain?.()
    // A meter of the application's may answer a promise: its failure is logged, not unhandled.
    if (drained instanceof Promise) drained.catch((error: unknown) => logDrainFailure(error))
  } catch (error) {
    logDrainFailure(error)
  }
}

function logDrainFailure(error: unknown): void {
  console.error('[model-gateway] close(): the usage meter failed to drain:', error)
}

/** Closes a part that has a `close` method (a ledger, a listener); others have nothing to release. */
async function closePart(part: object): Promise<void> {
  const close = (part as { close?: unknown }).close
  if (typeof close === 'function') await (close as () => unknown).call(part)
}
