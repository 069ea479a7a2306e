import type { CallInterceptor } from './call-interceptor'

/** A config's interceptors, with what the chain needs to know of them once, not per request. */
export type InterceptorChain = {
  readonly interceptors: readonly CallInterceptor[]
  /** Whether any interceptor has a `settled` hook: without one, no answer is watched. */
  readonly settles: boolean
  /** The most stream characters any interceptor asked for (`captureStream`); 0 for none. */
  readonly captureStream: number
}

/**
 * The chain of a config's interceptors; `undefined` when there are none, so that every call skips
 * the chain at the cost of one comparison.
 *
 * @throws Error when two interceptors share a name: `answeredBy` would not say which answered
 */
export function createInterceptorChain(
  interceptors: readonly CallInterceptor[] | undefined,
): InterceptorChain | undefined {
  if (interceptors === undefined || interceptors.length === 0) return undefined
  const names = new Set<string>()
  for (const interceptor of interceptors) {
    if (names.has(interceptor.name)) {
      throw new Error(`Two interceptors are named "${interceptor.name}".`)
    }
    names.add(interceptor.name)
  }
  return {
    interceptors: [...interceptors],
    settles: interceptors.some((interceptor) => interceptor.settled !== undefined),
    captureStream: Math.max(
      0,
      ...interceptors.map((interceptor) => interceptor.captureStream ?? 0),
    ),
  }
}
