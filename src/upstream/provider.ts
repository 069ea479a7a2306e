import type { ProtocolName } from '../protocols/protocol-name'

/** The operations a gateway asks of an upstream, each in the upstream's own protocol. */
export type UpstreamOperation =
  | 'chat-completions'
  | 'messages'
  | 'count-tokens'
  | 'generate-content'
  | 'stream-generate-content'
  | 'gemini-count-tokens'
  | 'responses'
  | 'embeddings'
  | 'embed-content'
  | 'batch-embed-contents'

/** One call to an upstream, already in the upstream's own protocol. */
export type UpstreamCall = {
  operation: UpstreamOperation
  /** The model name the upstream expects. */
  model: string
  /** The request body, ready to send. */
  body: string
  /** Headers to send besides the provider's own auth: content type and the forwarded allow-list. */
  headers: Headers
  stream: boolean
  /** Aborts when the client goes away or the upstream timeout passes. */
  signal: AbortSignal
  /**
   * Which of a pooled upstream's keys this call uses (its index in the pool), as the upstream
   * selector chose it; `undefined` for an upstream with one key, or to let the provider choose.
   */
  credential?: number | undefined
}

/**
 * An upstream server of one protocol family. It answers with a WHATWG `Response`, exactly as the
 * upstream sent it: the gateway reads status, headers and body from it. Implement it to reach an
 * upstream the built-in HTTP provider cannot (custom auth, signing, an in-process model). Do not
 * follow redirects in `send`: the gateway treats a 3xx as the upstream's failure.
 */
export interface UpstreamProvider {
  /** Identifies the upstream in usage records and events; never a secret. */
  readonly id: string
  readonly protocol: ProtocolName
  /** Relative weight within its group (default 1). */
  readonly weight?: number | undefined
  /**
   * Values this provider sends upstream that no client, log or event may ever see (API keys,
   * signing tokens). The gateway scrubs them, whole or in part, from upstream error messages and
   * mid-stream errors; the HTTP provider lists its API key and secret-looking configured headers.
   */
  readonly secrets?: readonly string[] | undefined
  /**
   * The masked forms (`sk-…abcd`) of a pooled upstream's keys, by index: the gateway picks one per
   * call, passes its index as `UpstreamCall.credential`, and takes a key the upstream refused out
   * of rotation. Absent for an upstream with one credential.
   */
  readonly credentials?: readonly string[] | undefined
  /**
   * The most calls this upstream is given at once (streams count until they end); past it the
   * gateway picks another upstream of the group, or answers 503 (529 to Anthropic clients).
   */
  readonly maxConcurrent?: number | undefined
  send(call: UpstreamCall): Promise<Response>
}
