/**
 * What the gateway's own code reads of an abort signal: whether and why it fired, and listeners
 * for when it does. An `AbortSignal` is one; an upstream exchange's own signal is a lighter one.
 */
export type CallSignal = {
  readonly aborted: boolean
  readonly reason: unknown
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/** A light abort signal and the way to fire it; a real `AbortSignal` only when one is asked for. */
export type LightAbort = {
  readonly signal: CallSignal
  /** A real `AbortSignal` that follows this one, built on first use (a WHATWG fetch needs one). */
  webSignal(): AbortSignal
  abort(reason: unknown): void
}

/**
 * A signal with a listener list instead of an `AbortController` and its `EventTarget`: an upstream
 * attempt opens one, and on the gateway's direct Node path nothing ever needs more. It behaves as
 * an `AbortSignal` does where the gateway uses one: every listener runs once, in order, when it
 * fires; a listener added after that never runs; a listener that throws does not stop the others.
 */
export function createLightAbort(): LightAbort {
  let listeners: Array<() => void> | undefined
  let controller: AbortController | undefined
  const signal = {
    aborted: false,
    reason: undefined as unknown,
    addEventListener(_type: 'abort', listener: () => void) {
      if (!signal.aborted) (listeners ??= []).push(listener)
    },
    removeEventListener(_type: 'abort', listener: () => void) {
      const index = listeners?.indexOf(listener) ?? -1
      if (index >= 0) listeners!.splice(index, 1)
    },
  }
  return {
    signal,
    webSignal() {
      if (controller === undefined) {
        controller = new AbortController()
        if (signal.aborted) controller.abort(signal.reason)
      }
      return controller.signal
    },
    abort(reason) {
      if (signal.aborted) return
      signal.aborted = true
      signal.reason = reason
      controller?.abort(reason)
      const fired = listeners
      listeners = undefined
      for (const listener of fired ?? []) {
        try {
          listener()
        } catch (error) {
          // As an EventTarget reports a listener's error: thrown on its own, the others still run.
          queueMicrotask(() => {
            throw error
          })
        }
      }
    },
  }
}
