import type { KeyRecord } from '../auth/key-store'
import type { GatewayAnswer } from '../http/gateway-answer'
import type { RequestHeaders } from '../http/gateway-request'
import type { MaybePromise } from '../internal/maybe-promise'
import type { UsageCost } from '../pricing/usage-cost'
import type { ProtocolName } from '../protocols/protocol-name'
import type { TokenUsage, UsageOutcome } from '../usage/usage-meter'

/**
 * A call the gateway is about to make upstream, as interceptors see it: the request is
 * authenticated, its body valid and its call name resolved to a group, but nothing is admitted,
 * metered or sent yet. The same object is passed to `before` and `settled`, so an interceptor may
 * carry its own state from one to the other in a `WeakMap` keyed by it.
 */
export type InterceptedCall = {
  readonly requestId: string
  /**
   * The gateway route: `chat.completions`, `messages`, `count_tokens`, `responses`,
   * `embeddings`, `gemini.generate`, `gemini.stream`, `gemini.count_tokens`, `gemini.embed` or
   * `gemini.batch_embed`.
   */
  readonly route: string
  /** The client's protocol: the shape its body has, and the shape an answer must have. */
  readonly protocol: ProtocolName
  /** The authenticated key. */
  readonly key: KeyRecord
  /** The call name the client sent (for Gemini, the model of the path). */
  readonly model: string
  /** The id of the group the call name resolved to, and that group's name for the model. */
  readonly group: string
  readonly upstreamModel: string
  /** Whether the client asked for a stream: an answer must then be a stream of its protocol. */
  readonly stream: boolean
  /**
   * The client's body as the gateway validated it (a parsed JSON object in the client's protocol;
   * Gemini's with its snake_case fields in camelCase). Read it, never change it: the call is
   * planned from it after `before`.
   */
  readonly body: unknown
  /**
   * The client's request headers (`cache-control`, `anthropic-version`, `anthropic-beta`…), less
   * those that carry its credential (`authorization`, `x-api-key`, `x-goog-api-key`,
   * `proxy-authorization`, `cookie`): they read as absent. `key` names the caller.
   */
  readonly headers: RequestHeaders
}

/** How a call ended, as its `settled` hooks see it. */
export type SettledCall = {
  /** The HTTP status the client received (200 for a stream, even one that failed mid-way). */
  readonly status: number
  /** `ok`; `error` (an error answer, or a stream that failed mid-way); `aborted` (the client left). */
  readonly outcome: UsageOutcome
  /**
   * The name of the interceptor whose `before` answered the call; `undefined` when the call went
   * upstream (or failed before any answer).
   */
  readonly answeredBy: string | undefined
  /**
   * The usage the call was metered at; `undefined` when nothing was metered: an answer from an
   * interceptor, a token count, or a call refused before admission.
   */
  readonly usage: TokenUsage | undefined
  /** Its cost at the answering model's price; `null` unpriced, `undefined` when not metered. */
  readonly cost: UsageCost | null | undefined
  /**
   * The answer's body as the client received it: a JSON answer's text, or, when an interceptor
   * asked for it (`captureStream`), a stream's text up to that many characters (`undefined` past
   * them). `undefined` for an error answer's body.
   */
  readonly body: string | undefined
  /** The error the client was answered with, or the stream ended on. */
  readonly error: { readonly code: string; readonly message: string } | undefined
  /** From the request's start until its answer ended. */
  readonly durationMs: number
}

/**
 * Code around every call that reaches an upstream: the generation routes of all four client
 * protocols, token counting and embeddings. Interceptors run in their config order. Each
 * `before` may answer the call itself (a cache hit): the upstream is not called, and later
 * interceptors see nothing of the call. Each interceptor whose `before` ran (or that has none, up
 * to the one that answered) gets `settled` once the answer is complete — a stream once it has
 * ended — in reverse order, innermost first.
 *
 * See docs/interceptors.md for what each part costs.
 */
export type CallInterceptor = {
  /** Named in `SettledCall.answeredBy` and in the request's event when it answers. */
  readonly name: string
  /**
   * Called before the call is admitted or sent. Return an answer in the client's protocol (a
   * stream when `call.stream`) to answer the call with it; `undefined` to let the call go on. A
   * throw answers the client with that error, as a handler's would (a `GatewayError` as it is,
   * anything else as a 500).
   */
  before?(call: InterceptedCall): MaybePromise<GatewayAnswer | undefined>
  /**
   * Called once the answer is complete; it cannot change the answer. A promise it returns is
   * waited for by `close()` (and by the runtime's `waitUntil`), and a failure is logged, never
   * answered.
   */
  settled?(call: InterceptedCall, settled: SettledCall): MaybePromise<void>
  /**
   * How many characters of a streamed answer `settled` gets as `body` (a cache's largest entry).
   * The pieces are copied as they go to the client, never held back. Default 0: none.
   */
  readonly captureStream?: number | undefined
}
