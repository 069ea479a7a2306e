import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { classifyUpstreamFailure } from '../upstream/classify-failure'
import { yieldToIo } from '../internal/yield-to-io'
import { openExchange } from '../upstream/exchange'
import type { UpstreamCall, UpstreamProvider } from '../upstream/provider'
import { readUpstreamJson } from '../upstream/read-upstream-answer'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { setRequestIdHeaders } from '../upstream/upstream-headers'
import { scrubGatewayError } from '../upstream/secret-scrubber'
import { sendUpstream } from '../upstream/upstream-answer'

/**
 * One upstream call that uses no tokens (token counting), so it is neither admitted nor metered:
 * the upstream timeout and the client's abort still apply, a non-2xx answer becomes the usual
 * `GatewayError` (scrubbed of the upstream's secrets), and the answer is checked like any other:
 * JSON, one object, within the response size limit, else a 502.
 *
 * @returns the upstream's status, its body text as sent, and the object it parses to
 */
export async function callUnmetered(
  runtime: GatewayRuntime,
  scope: RequestScope,
  provider: UpstreamProvider,
  call: Omit<UpstreamCall, 'signal' | 'stream'>,
): Promise<{ status: number; text: string; body: Record<string, unknown> }> {
  const exchange = openExchange(scope.request.signal, runtime.upstreamTimeoutMs, runtime.now)
  setRequestIdHeaders(call.headers, scope.requestId)
  const scrub = runtime.scrubberFor(provider)
  try {
    // A client that left is never forwarded, whatever the provider does with the signal.
    await yieldToIo()
    exchange.signal.throwIfAborted()
    const upstream = await sendUpstream(provider, {
      ...call,
      stream: false,
      signal: exchange.signal,
    })
    if (!upstream.ok) throw await readUpstreamError(upstream, provider.protocol, scrub)
    const answer = await readUpstreamJson(upstream, runtime.maxResponseBytes)
    return { status: upstream.status, ...answer }
  } catch (error) {
    const failure = classifyUpstreamFailure(error, exchange)
    throw GatewayError.isInstance(failure) ? scrubGatewayError(failure, scrub) : failure
  } finally {
    exchange.dispose()
  }
}
