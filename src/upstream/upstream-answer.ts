import type { CallSignal } from '../internal/call-signal'
import type { ChunkSource } from '../sse/chunk-source'
import type { UpstreamCall, UpstreamProvider } from './provider'

export type { ChunkSource } from '../sse/chunk-source'

/**
 * An upstream's answer as the relay reads it: status, headers by name, and the body as a chunk
 * source. Built from a WHATWG `Response` (`fromUpstreamResponse`), or directly by a transport that
 * has no use for one (`createNodeFetch` on Node), which can also hand a JSON body over as text.
 */
export type UpstreamAnswer = {
  readonly status: number
  readonly ok: boolean
  /** `opaqueredirect` for a redirect fetch did not follow (`redirect: 'manual'` in a browser). */
  readonly type?: string | undefined
  readonly headers: { get(name: string): string | null }
  readonly body: ChunkSource | null
  /** The whole body as text, refused past `maxBytes`; absent where only the chunks are read. */
  text?(maxBytes: number, tooLarge: () => Error): Promise<string>
}

/** A WHATWG `Response` as an upstream answer. */
export function fromUpstreamResponse(response: Response): UpstreamAnswer {
  return {
    status: response.status,
    ok: response.ok,
    type: response.type,
    headers: response.headers,
    body: response.body === null ? null : response.body.getReader(),
  }
}

/**
 * Where a transport keeps its way of answering with an `UpstreamAnswer` rather than a `Response`
 * (`createNodeFetch` does). A registered symbol, so that duplicate package copies agree.
 */
export const upstreamAnswerKey: unique symbol = Symbol.for('model-gateway.upstream-answer') as never

/** A transport's direct call: a fetch with a plain header record and a text body. */
export type DirectFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal: CallSignal },
) => Promise<UpstreamAnswer>

/** The direct call of a fetch that has one, else `undefined`. */
export function directFetchOf(fetch: unknown): DirectFetch | undefined {
  if (typeof fetch !== 'function') return undefined
  const direct = (fetch as { [upstreamAnswerKey]?: unknown })[upstreamAnswerKey]
  return typeof direct === 'function' ? (direct as DirectFetch) : undefined
}

/** A provider that can answer with an `UpstreamAnswer` directly (the HTTP provider, over such a fetch). */
type DirectProvider = UpstreamProvider & {
  [upstreamAnswerKey]?: (
    call: UpstreamCall,
    signal: CallSignal,
  ) => Promise<UpstreamAnswer> | undefined
}

/**
 * Sends one call: through the provider's direct path when it has one (no `Response` built), with
 * `signal` (the exchange's light one; `call.signal` is then never read, so a lazily built
 * `AbortSignal` is never built), else through its public `send`.
 */
export async function sendUpstream(
  provider: UpstreamProvider,
  call: UpstreamCall,
  signal: CallSignal = call.signal,
): Promise<UpstreamAnswer> {
  const direct = (provider as DirectProvider)[upstreamAnswerKey]?.(call, signal)
  if (direct !== undefined) return direct
  return fromUpstreamResponse(await provider.send(call))
}
