import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { classifyUpstreamFailure } from '../upstream/classify-failure'
import { yieldToIo } from '../internal/yield-to-io'
import { openExchange } from '../upstream/exchange'
import type { UpstreamCall } from '../upstream/provider'
import type { Group } from '../routing/group-registry'
import { attemptVerdict } from '../failover/attempt-verdict'
import { nothingAvailable } from '../failover/nothing-available'
import { isUnavailable, type AttemptVerdict } from '../failover/upstream-selector'
import { readUpstreamJson } from '../upstream/read-upstream-answer'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { setRequestIdHeaders } from '../upstream/upstream-headers'
import { scrubGatewayError } from '../upstream/secret-scrubber'
import { sendUpstream } from '../upstream/upstream-answer'

const noneTried: ReadonlySet<string> = new Set()

/**
 * One upstream call that uses no tokens (token counting), so it is neither admitted nor metered:
 * its upstream is chosen by the selector (and its verdict reported to it), the upstream timeout and the client's abort still apply, a non-2xx answer becomes the usual
 * `GatewayError` (scrubbed of the upstream's secrets), and the answer is checked like any other:
 * JSON, one object, within the response size limit, else a 502.
 *
 * @returns the upstream's status, its body text as sent, and the object it parses to
 */
export async function callUnmetered(
  runtime: GatewayRuntime,
  scope: RequestScope,
  group: Group,
  call: Omit<UpstreamCall, 'signal' | 'stream' | 'credential'>,
): Promise<{ status: number; text: string; body: Record<string, unknown> }> {
  const choice = runtime.selector.select(group, { tried: noneTried, sessionHint: undefined })
  const selection = choice instanceof Promise ? await choice : choice
  if (isUnavailable(selection)) throw nothingAvailable(selection)
  const provider = selection.upstream
  scope.event.provider = provider.id
  let verdict: AttemptVerdict = { kind: 'ok' }
  const exchange = openExchange(scope.request.signal, runtime.upstreamTimeoutMs, runtime.now)
  setRequestIdHeaders(call.headers, scope.requestId)
  const scrub = runtime.scrubberFor(provider)
  try {
    // A client that left is never forwarded, whatever the provider does with the signal.
    await yieldToIo()
    if (exchange.signal.aborted) throw exchange.signal.reason
    const upstream = await sendUpstream(
      provider,
      {
        ...call,
        stream: false,
        get signal() {
          return exchange.abortSignal
        },
        credential: selection.credential?.index,
      },
      exchange.signal,
    )
    if (!upstream.ok) throw await readUpstreamError(upstream, provider.protocol, scrub)
    const answer = await readUpstreamJson(upstream, runtime.maxResponseBytes)
    return { status: upstream.status, ...answer }
  } catch (error) {
    const failure = classifyUpstreamFailure(error, exchange)
    verdict = attemptVerdict(failure)
    throw GatewayError.isInstance(failure) ? scrubGatewayError(failure, scrub) : failure
  } finally {
    exchange.dispose()
    selection.finish(verdict)
  }
}
