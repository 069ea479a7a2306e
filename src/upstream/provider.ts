import type { PriceSurcharge } from '../pricing/price-surcharge'
import type { ProtocolName } from '../protocols/protocol-name'
import type { ChunkSource } from '../sse/chunk-source'

/**
 * The version of the upstream provider and kind interfaces this gateway implements. A provider or
 * kind that declares another is refused when the gateway is created, with an error naming both:
 * a kind written against a later interface would otherwise fail at its first call, or worse,
 * answer wrongly.
 */
export const upstreamSpecificationVersion = 1

/**
 * An upstream's answer as a stream reader gets it: status, headers by name, and the body a chunk
 * at a time.
 */
export type UpstreamStreamAnswer = {
  readonly status: number
  readonly headers: { get(name: string): string | null }
  readonly body: ChunkSource | null
}

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
  | 'converse'
  | 'converse-stream'

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
   * Its priority tier within its group (default 0): a call goes to the lowest tier that has an
   * upstream able to take it, and to a higher tier only once that tier is exhausted or refuses.
   */
  readonly priority?: number | undefined
  /**
   * What this upstream charges relative to the catalogue's price for the group's models (0.7: a
   * contract 30% under list). It counts in the list price of the calls it answers, after any
   * regional surcharge, and `balancing: "cost"` ranks upstreams by it (default 1).
   */
  readonly priceMultiplier?: number | undefined
  /**
   * Values this provider sends upstream that no client, log or event may ever see (API keys,
   * signing tokens). The gateway scrubs them, whole or in part, from upstream error messages and
   * mid-stream errors; the HTTP provider lists its API key and secret-looking configured headers.
   * It may be a getter, for credentials obtained while the gateway runs (a short-lived token): it
   * is read on each error, and a new array makes the gateway scrub the new list.
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
  /**
   * The provider interface it implements (`upstreamSpecificationVersion`); absent counts as 1.
   * The gateway refuses a provider of a version it does not know.
   */
  readonly specificationVersion?: number | undefined
  send(call: UpstreamCall): Promise<Response>
  /**
   * For an upstream whose stream is not server-sent events (a binary event stream, JSON lines):
   * turns a 2xx answer to a stream call into the SSE bytes of its family's protocol, which the
   * gateway then reads as it reads any upstream's stream. It checks the answer's content type
   * itself, and may throw a `GatewayError` for an answer it cannot read. Absent: the answer must
   * be `text/event-stream`.
   */
  readStream?(answer: UpstreamStreamAnswer): ChunkSource
  /**
   * Maps the upstream's own error body (parsed JSON, or the text when it is not JSON; already
   * scrubbed of secrets) to its family's error shape, so that a same-protocol client gets an
   * error it can parse. Absent: the body is taken as already in the family's shape.
   */
  normaliseError?(body: unknown, status: number): unknown
  /**
   * What this upstream charges for an upstream model over the catalogue's price, because of where
   * it runs the model (Claude on a Vertex regional endpoint or a Bedrock geographic profile costs
   * 10% more than on the global one): a multiplier and the vendor page that says so. A request
   * an attempt on this upstream answers is charged at it; `undefined` (or no method) is the
   * catalogue's price. Called once per attempt: return the same object for the same model.
   */
  priceSurcharge?(upstreamModel: string): PriceSurcharge | undefined
}
