import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { readTextWithLimit } from '../http/read-body'
import { classifyUpstreamFailure } from '../upstream/classify-failure'
import { yieldToIo } from '../internal/yield-to-io'
import { openExchange } from '../upstream/exchange'
import type { UpstreamCall, UpstreamProvider } from '../upstream/provider'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { setRequestIdHeaders } from '../upstream/upstream-headers'

/**
 * One upstream call that uses no tokens (token counting), so it is neither admitted nor metered:
 * the upstream timeout and the client's abort still apply, a non-2xx answer becomes the usual
 * `GatewayError`, and the answer is read with the response size limit.
 *
 * @returns the upstream's status and body text
 */
export async function callUnmetered(
  runtime: GatewayRuntime,
  scope: RequestScope,
  provider: UpstreamProvider,
  call: Omit<UpstreamCall, 'signal' | 'stream'>,
): Promise<{ status: number; text: string }> {
  const exchange = openExchange(scope.request.signal, runtime.upstreamTimeoutMs, runtime.now)
  setRequestIdHeaders(call.headers, scope.requestId)
  try {
    // A client that left is never forwarded, whatever the provider does with the signal.
    await yieldToIo()
    exchange.signal.throwIfAborted()
    const upstream = await provider.send({ ...call, stream: false, signal: exchange.signal })
    if (!upstream.ok) throw await readUpstreamError(upstream, provider.protocol)
    return {
      status: upstream.status,
      text: await readTextWithLimit(upstream.body, runtime.maxResponseBytes),
    }
  } catch (error) {
    throw classifyUpstreamFailure(error, exchange)
  } finally {
    exchange.dispose()
  }
}
