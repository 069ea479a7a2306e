import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import type { AnswerStream, GatewayAnswer } from '../http/gateway-answer'
import type { RequestHeaders } from '../http/gateway-request'
import type { CallInterceptor, InterceptedCall, SettledCall } from '../intercept/call-interceptor'
import type { InterceptorChain } from '../intercept/interceptor-chain'
import type { ProtocolName } from '../protocols/protocol-name'
import type { Route } from '../routing/resolve-route'
import type { UsageOutcome } from '../usage/usage-meter'

/** What the chain needs to know of a call: a routed generation call has it all. */
export type CallFacts = {
  route: Route
  /** The call name the client sent. */
  model: string
  stream: boolean
  /** The client's protocol and its validated body. */
  protocol: ProtocolName
  body: unknown
}

/** The call the chain wraps: the relay's attempt loop, or a handler's unmetered call. */
export type ChainedCall<F extends CallFacts, T> = (
  runtime: GatewayRuntime,
  scope: AuthedScope,
  facts: F,
  input: T,
) => Promise<GatewayAnswer>

/**
 * Makes a call through the config's interceptors (`CallInterceptor`): `run(runtime, scope, facts,
 * input)` is called unless an interceptor answers first. Without interceptors it is called
 * straight away: `run` is a module-level function and `input` what it needs, so that the chain
 * costs no closure and no promise per request when it is empty.
 */
export function callThroughChain<F extends CallFacts, T>(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  facts: F,
  run: ChainedCall<F, T>,
  input: T,
): Promise<GatewayAnswer> {
  const chain = runtime.interceptors
  if (chain === undefined) return run(runtime, scope, facts, input)
  return runChain(chain, runtime, scope, facts, run, input)
}

async function runChain<F extends CallFacts, T>(
  chain: InterceptorChain,
  runtime: GatewayRuntime,
  scope: AuthedScope,
  facts: F,
  run: ChainedCall<F, T>,
  input: T,
): Promise<GatewayAnswer> {
  const call: InterceptedCall = {
    requestId: scope.requestId,
    route: scope.event.route,
    protocol: facts.protocol,
    key: scope.key,
    model: facts.model,
    group: facts.route.group.id,
    upstreamModel: facts.route.model.upstreamModel,
    stream: facts.stream,
    body: facts.body,
    headers: withoutCredentials(scope.request.headers),
  }
  const { interceptors } = chain
  // The interceptors that see the call settle: those before the one that answered, and it.
  let reached = 0
  let answeredBy: string | undefined
  let body: string | undefined
  // While a captured stream is still being read, its settlement waits for the last piece: the
  // relay settles a stream before its last frames are queued for the client.
  let held: (() => void) | undefined
  let holding = false
  if (chain.settles) {
    scope.onSettled = (status, outcome) => {
      const fire = () =>
        settle(scope, interceptors.slice(0, reached), call, {
          status,
          outcome,
          answeredBy,
          usage: scope.event.usage,
          cost: scope.event.cost,
          body,
          error: scope.event.error,
          durationMs: runtime.now() - scope.startedAt,
        })
      if (holding) held = fire
      else fire()
    }
  }
  while (reached < interceptors.length) {
    const interceptor = interceptors[reached++]!
    if (interceptor.before === undefined) continue
    const early = interceptor.before(call)
    let answer = early instanceof Promise ? await early : early
    if (answer === undefined) continue
    answeredBy = interceptor.name
    scope.event.interceptedBy = interceptor.name
    // The gateway adds this request's own headers (request id, CORS) and wraps the body: a copy,
    // so that an interceptor that hands out one remembered answer never carries one client's
    // headers to another.
    answer = { status: answer.status, headers: new Map(answer.headers), body: answer.body }
    if (typeof answer.body === 'string') body = answer.body
    else if (answer.body !== null) {
      // Its event waits for its end, as an upstream stream's does: its outcome is known then,
      // and `maxInFlight` counts it until then.
      scope.eventDeferred = true
      const status = answer.status
      answer.body = watchStream(answer.body, undefined, (outcome) =>
        scope.complete(status, outcome),
      )
    }
    return answer
  }
  const answer = await run(runtime, scope, facts, input)
  if (typeof answer.body === 'string') body = answer.body
  else if (answer.body !== null && chain.settles && chain.captureStream > 0) {
    const limit = chain.captureStream
    let text: string | undefined = ''
    holding = true
    answer.body = watchStream(
      answer.body,
      (piece) => {
        if (text === undefined) return
        text = text.length + piece.length > limit ? undefined : text + piece
        body = text
      },
      () => {
        holding = false
        held?.()
      },
    )
  }
  return answer
}

/** Runs the `settled` hooks innermost first; none of them can fail the request. */
function settle(
  scope: AuthedScope,
  reached: readonly CallInterceptor[],
  call: InterceptedCall,
  settled: SettledCall,
): void {
  for (let index = reached.length - 1; index >= 0; index--) {
    const interceptor = reached[index]!
    if (interceptor.settled === undefined) continue
    try {
      const result = interceptor.settled(call, settled)
      if (result instanceof Promise) {
        scope.waitUntil(result.catch((error: unknown) => reportFailure(interceptor, error)))
      }
    } catch (error) {
      reportFailure(interceptor, error)
    }
  }
}

function reportFailure(interceptor: CallInterceptor, error: unknown): void {
  console.error(`[model-gateway] interceptor ${interceptor.name} failed in settled:`, error)
}

/**
 * A stream as it goes to the client, its pieces shown to `see` and its end told to `end` once:
 * after the last piece, on a failure, or when the client leaves. Nothing is held back.
 */
function watchStream(
  stream: AnswerStream,
  see: ((piece: string) => void) | undefined,
  end: (outcome: UsageOutcome) => void,
): AnswerStream {
  let ended = false
  const finish = (outcome: UsageOutcome) => {
    if (ended) return
    ended = true
    end(outcome)
  }
  return {
    get done() {
      return stream.done
    },
    async next() {
      let piece: string | undefined
      try {
        piece = await stream.next()
      } catch (error) {
        finish('error')
        throw error
      }
      if (piece !== undefined) see?.(piece)
      if (piece === undefined || stream.done) finish('ok')
      return piece
    },
    cancel() {
      stream.cancel()
      finish('aborted')
    },
  }
}

/**
 * Headers that carry the client's own credential: the gateway key the client authenticated with
 * (the interceptor has the key's record, never the secret), or a browser's cookie.
 */
const credentialHeaders = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'cookie',
])

/** The client's headers as an interceptor sees them: every one but those with its credential. */
function withoutCredentials(headers: RequestHeaders): RequestHeaders {
  return {
    get: (name) => (credentialHeaders.has(name.toLowerCase()) ? null : headers.get(name)),
    has: (name) => !credentialHeaders.has(name.toLowerCase()) && headers.has(name),
  }
}
