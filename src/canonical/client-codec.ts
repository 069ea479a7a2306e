import type { StreamEncoder } from './stream-codec'
import type { ChatResponse } from './types'

/** What a translated answer to a client carries besides the canonical response. */
export type ClientMeta = {
  requestId: string
  /** The call name the client sent, echoed as the answer's model (ID-02). */
  model: string
  /** Unix seconds. */
  created: number
  /** The client asked for the usage chunk (OpenAI `stream_options.include_usage`). */
  includeUsage: boolean
}

/** How the gateway answers a client of one protocol from the canonical form. */
export type ClientCodec = {
  encodeResponse(response: ChatResponse, meta: ClientMeta): unknown
  /** Its `error` event is the protocol's in-stream error form, also used for a broken upstream. */
  streamEncoder(meta: ClientMeta): StreamEncoder
  /** Whether a failed stream ends the connection abnormally after the error frame. */
  abortAfterFailure?: boolean
}
