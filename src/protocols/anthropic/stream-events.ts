/**
 * The Anthropic messages stream events the gateway writes, as typed wire payloads. Only the fields
 * the encoder sets: the decoder reads upstream events leniently instead (unknown fields and block
 * types are expected there).
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types
 * @module
 */

/** `usage` in `message_start` and `message_delta`; `input_tokens` excludes cache reads and writes. */
export type AnthropicStreamUsage = {
  input_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
  output_tokens: number
}

/** The refusal details of a `message_delta` with `stop_reason: "refusal"`. */
export type AnthropicRefusalDetails = {
  type: 'refusal'
  category: string | null
  explanation: string | null
}

/** A content block as `content_block_start` announces it, empty: its content follows in deltas. */
export type AnthropicStartBlock =
  | { type: 'text'; text: '' }
  | { type: 'thinking'; thinking: ''; signature: '' }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, never> }

/** The `delta` of a `content_block_delta`. */
export type AnthropicBlockDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'input_json_delta'; partial_json: string }

/** One event of an Anthropic messages stream, as the `data:` of a frame named after its `type`. */
export type AnthropicStreamEvent =
  | {
      type: 'message_start'
      message: {
        id: string
        type: 'message'
        role: 'assistant'
        content: []
        model: string
        stop_reason: null
        stop_sequence: null
        stop_details: null
        usage: AnthropicStreamUsage
      }
    }
  | { type: 'ping' }
  | { type: 'content_block_start'; index: number; content_block: AnthropicStartBlock }
  | { type: 'content_block_delta'; index: number; delta: AnthropicBlockDelta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta'
      delta: {
        stop_reason: string
        stop_sequence: string | null
        stop_details: AnthropicRefusalDetails | null
      }
      usage: AnthropicStreamUsage
    }
  | { type: 'message_stop' }
