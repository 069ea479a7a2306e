import type { ClientSignal } from '../http/gateway-request'
import { createLightAbort, type CallSignal } from '../internal/call-signal'

/** Why an upstream call was cut short (`deadline`: the stream reached `maxStreamMs`). */
export type ExchangeEnd = 'client' | 'timeout' | 'idle' | 'deadline' | 'done'

/**
 * The lifetime of one upstream call: one signal that fires when the client goes away, when no
 * first byte has come within the timeout, or when a stream falls idle. The idle watchdog re-arms
 * one timer per idle period instead of one per chunk, so a busy stream costs a timestamp write per
 * event and nothing more. The signal is a light one (a listener list): the gateway's direct Node
 * path needs nothing more, and an `AbortController` with its `EventTarget` per attempt was a
 * measurable share of a request's CPU.
 */
export type UpstreamExchange = {
  /** Fires when the exchange is aborted; what the gateway's own code listens to. */
  readonly signal: CallSignal
  /**
   * A real `AbortSignal` that fires with `signal`, built on first use: for a custom provider or a
   * WHATWG `fetch`, which need one.
   */
  readonly abortSignal: AbortSignal
  /** Why the exchange was aborted, or `undefined` while it runs. */
  end(): ExchangeEnd | undefined
  /** Swaps the first-byte timeout for an idle timeout of `idleMs` between events. */
  startIdleWatch(idleMs: number): void
  /** Records activity for the idle watchdog. */
  touch(): void
  abort(reason: ExchangeEnd): void
  /** Stops the timers and detaches from the client's signal. */
  dispose(): void
}

/**
 * Opens an exchange tied to the client's signal, with a timeout until the first byte and, when
 * `deadlineMs` is given, a limit on the whole exchange however busy it is.
 */
export function openExchange(
  clientSignal: ClientSignal,
  timeoutMs: number,
  now: () => number,
  options: { deadlineMs?: number | undefined } = {},
): UpstreamExchange {
  const controller = createLightAbort()
  let reason: ExchangeEnd | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let deadline: ReturnType<typeof setTimeout> | undefined
  let lastActivity = now()
  const abort = (why: ExchangeEnd) => {
    if (reason !== undefined) return
    reason = why
    if (timer !== undefined) clearTimeout(timer)
    if (deadline !== undefined) clearTimeout(deadline)
    controller.abort(new DOMException(`Upstream call ended: ${why}`, 'AbortError'))
  }
  const onClientAbort = () => abort('client')
  if (clientSignal.aborted) abort('client')
  else clientSignal.addEventListener('abort', onClientAbort, { once: true })
  timer = setTimeout(() => abort('timeout'), timeoutMs)
  if (options.deadlineMs !== undefined) {
    deadline = setTimeout(() => abort('deadline'), options.deadlineMs)
  }
  return {
    signal: controller.signal,
    get abortSignal() {
      return controller.webSignal()
    },
    end: () => reason,
    startIdleWatch(idleMs) {
      if (timer !== undefined) clearTimeout(timer)
      if (reason !== undefined) return
      lastActivity = now()
      const check = () => {
        const quiet = now() - lastActivity
        if (quiet >= idleMs) abort('idle')
        else timer = setTimeout(check, idleMs - quiet)
      }
      timer = setTimeout(check, idleMs)
    },
    touch() {
      lastActivity = now()
    },
    abort,
    dispose() {
      if (timer !== undefined) clearTimeout(timer)
      if (deadline !== undefined) clearTimeout(deadline)
      timer = undefined
      deadline = undefined
      clientSignal.removeEventListener('abort', onClientAbort)
      if (reason === undefined) reason = 'done'
    },
  }
}
