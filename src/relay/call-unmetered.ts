import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { classifyUpstreamFailure, ClientGoneError } from '../upstream/classify-failure'
import { yieldToIo } from '../internal/yield-to-io'
import { openExchange } from '../upstream/exchange'
import type { UpstreamCall } from '../upstream/provider'
import type { Group } from '../routing/group-registry'
import { attemptVerdict } from '../failover/attempt-verdict'
import { backoffDelay, waitUnlessAborted } from '../failover/backoff'
import { nextStepAfter } from '../failover/classify-attempt'
import { nothingAvailable } from '../failover/nothing-available'
import { retryPolicyOf } from '../failover/retry-policy'
import { isUnavailable, type AttemptVerdict, type Selection } from '../failover/upstream-selector'
import { readUpstreamJson } from '../upstream/read-upstream-answer'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { setRequestIdHeaders } from '../upstream/upstream-headers'
import { scrubGatewayError } from '../upstream/secret-scrubber'
import { gatewayCall, type CallHeaders } from '../upstream/call-headers'
import { sendUpstream } from '../upstream/upstream-answer'
import { upstreamRetryAfterMs } from '../http/retry-after'

type Answer = { status: number; text: string; body: Record<string, unknown> }
/** An upstream call that uses no tokens: what `callUnmetered` sends. */
export type UnmeteredCall = Omit<UpstreamCall, 'signal' | 'stream' | 'credential' | 'headers'> & {
  headers: CallHeaders
}

/**
 * Upstream calls that use no tokens (token counting), so they are neither admitted nor metered,
 * with the same attempts as generation: the group's upstreams in turn as the selector picks them
 * (for the call's upstream model, with the session hint), a retryable failure moved on from within
 * the group's retry policy and budget, a lone upstream tried again, and, when every upstream rests,
 * the one whose rest ends first tried anyway (unless the group says `whenAllResting: "refuse"`).
 * Every selection hears its verdict. The upstream timeout and the client's abort apply; a non-2xx
 * answer becomes the usual `GatewayError` (scrubbed of the upstream's secrets), and the answer is
 * checked like any other: JSON, one object, within the response size limit, else a 502.
 *
 * @returns the upstream's status, its body text as sent, and the object it parses to
 */
export async function callUnmetered(
  runtime: GatewayRuntime,
  scope: RequestScope,
  group: Group,
  call: UnmeteredCall,
  sessionHint?: string | undefined,
): Promise<Answer> {
  const policy = retryPolicyOf(group)
  const budget = runtime.retryBudget(group.id, policy)
  budget.deposit()
  const startedAt = runtime.now()
  const refuses =
    group.circuitBreaker !== undefined &&
    group.circuitBreaker !== false &&
    group.circuitBreaker.whenAllResting === 'refuse'
  const tried = new Set<string>()
  let retrySame: string | undefined
  let retryAfterMs = 0
  let failure: unknown
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (attempt > 0) {
      const wait = Math.max(retryAfterMs, backoffDelay(attempt, policy, runtime.random))
      if (runtime.now() - startedAt + wait > policy.deadlineMs || !budget.withdraw()) break
      if (!(await waitUnlessAborted(wait, scope.request.signal))) throw new ClientGoneError()
    }
    const context = { tried, retrySame, sessionHint, model: call.model }
    let choice = runtime.selector.select(group, context)
    let selection = choice instanceof Promise ? await choice : choice
    if (isUnavailable(selection) && selection.reason === 'circuits-open' && !refuses) {
      // Nothing else can serve: the candidate whose rest ends first is tried anyway.
      choice = runtime.selector.select(group, { ...context, resting: true })
      selection = choice instanceof Promise ? await choice : choice
    }
    if (isUnavailable(selection)) {
      if (failure !== undefined) break
      throw nothingAvailable(selection, call.model)
    }
    try {
      return await attemptUnmetered(runtime, scope, selection, call)
    } catch (error) {
      failure = error
      const verdict = attemptVerdict(error)
      if (nextStepAfter(error, verdict) === 'stop') throw error
      const wait = GatewayError.isInstance(error) ? upstreamRetryAfterMs(error) : undefined
      const id = selection.upstream.id
      const others = group.upstreams.some(
        (upstream) => upstream.id !== id && !tried.has(upstream.id),
      )
      if (verdict.kind === 'rejected-key' && selection.credential !== undefined) {
        // The key was refused, not the upstream: the same upstream with another of its keys.
        retrySame = id
        retryAfterMs = 0
      } else if (!others && verdict.kind === 'failed' && (wait ?? 0) <= policy.maxRetryAfterMs) {
        // A lone upstream (or the last one left) is tried again, after its retry-after.
        retrySame = id
        retryAfterMs = wait ?? 0
      } else {
        if (!others) break
        tried.add(id)
        retrySame = undefined
        retryAfterMs = 0
      }
    }
  }
  throw failure
}

/** One attempt of an unmetered call on the upstream `selection` chose; reports its verdict. */
async function attemptUnmetered(
  runtime: GatewayRuntime,
  scope: RequestScope,
  selection: Selection,
  call: UnmeteredCall,
): Promise<Answer> {
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
      gatewayCall(
        {
          operation: call.operation,
          model: call.model,
          body: call.body,
          stream: false,
          credential: selection.credential?.index,
        },
        call.headers,
        () => exchange.abortSignal,
      ),
      exchange.signal,
    )
    if (!upstream.ok) throw await readUpstreamError(upstream, provider, scrub)
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
