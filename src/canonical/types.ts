/**
 * The canonical form that cross-protocol calls pass through: a client request is decoded into it,
 * encoded for the upstream, and the answer comes back the same way. Data only, no behaviour.
 * Same-protocol calls never touch it (they are passthrough).
 *
 * @module
 */
import type { GatewayError } from '../errors'
import type { ProtocolName } from '../protocols/protocol-name'

/** A signature or opaque token that only the protocol that minted it may receive back. */
export type Signed = { protocol: ProtocolName; value: string }

export type TextPart = { type: 'text'; text: string; cacheControl?: unknown }

export type ImagePart = {
  type: 'image'
  source: { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string }
  cacheControl?: unknown
}

/** A document (PDF or plain text). */
export type FilePart = {
  type: 'file'
  mediaType: string
  source:
    { kind: 'base64'; data: string } | { kind: 'url'; url: string } | { kind: 'text'; text: string }
  filename?: string
  cacheControl?: unknown
}

/**
 * Model reasoning. `signature` is kept only with its origin, so an Anthropic signature goes back
 * to Anthropic byte for byte and nothing else ever reaches Anthropic as one (signatures are never
 * forged). An `openai` signature is the gateway's own record of where an OpenAI-compatible
 * upstream's reasoning came from — field, model (as a digest), digest of the text — so that it
 * goes back to that model (`reasoningOriginSignature`, ADR 0018). `redacted` holds Anthropic's
 * encrypted `redacted_thinking` data instead of text.
 */
export type ReasoningPart = {
  type: 'reasoning'
  text: string
  signature?: Signed
  redacted?: Signed
}

/** A tool call; `arguments` is JSON text exactly as received (two of three protocols stream it as text). */
export type ToolCallPart = {
  type: 'tool-call'
  id: string
  name: string
  arguments: string
  /** Gemini's thought signature on a function call, kept for the round trip. */
  signature?: Signed
}

export type ToolResultPart = {
  type: 'tool-result'
  toolCallId: string
  /** Gemini's functionResponse needs the name; decoders recover it from the earlier call. */
  toolName: string
  content: Array<TextPart | ImagePart>
  isError?: boolean
}

export type SystemMessage = { role: 'system'; content: TextPart[] }
export type UserMessage = { role: 'user'; content: Array<TextPart | ImagePart | FilePart> }
export type AssistantMessage = {
  role: 'assistant'
  content: Array<TextPart | ReasoningPart | ToolCallPart>
}
export type ToolMessage = { role: 'tool'; content: ToolResultPart[] }
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage

export type ToolDefinition = {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
}

export type ToolChoice = { type: 'auto' | 'none' | 'required' } | { type: 'tool'; name: string }

/** The answer format a request asks for (see `ChatRequest.responseFormat`). */
export type ResponseFormat =
  | { type: 'text' }
  | {
      type: 'json'
      schema?: Record<string, unknown>
      name?: string
      description?: string
      strict?: boolean
    }

/** A request in canonical form. `model` is the upstream model name once routed. */
export type ChatRequest = {
  model: string
  messages: Message[]
  tools?: ToolDefinition[]
  toolChoice?: ToolChoice
  /** `false` forbids several tool calls in one turn (OpenAI `parallel_tool_calls`, Anthropic `disable_parallel_tool_use`). */
  parallelToolCalls?: boolean
  maxOutputTokens?: number
  temperature?: number
  topP?: number
  topK?: number
  stopSequences?: string[]
  seed?: number
  /**
   * The shape of the answer. `json` asks for one JSON object; with `schema` (a JSON Schema
   * object) the object must conform to it. `name` and `description` label the schema (OpenAI
   * `json_schema.name`); `strict` is OpenAI's strict mode, kept only when the client asked for it.
   * Each upstream gets its own form: OpenAI `response_format`, Anthropic `output_config.format`
   * or a forced tool, Gemini `responseMimeType` + `responseJsonSchema` (docs/translation.md › Structured
   * output).
   */
  responseFormat?: ResponseFormat
  /**
   * Reasoning the client asked for. `effort: 'none'` turns it off; any other effort, a
   * `budgetTokens` or `enabled: true` (on, size left to the model: Anthropic adaptive, Gemini's
   * dynamic budget) turns it on. Absent: the client said nothing, and the model's default holds.
   * A client that only asks to *see* thoughts (Gemini `includeThoughts` alone) sets nothing.
   * The encoders fit this to what the target model accepts (docs/model-profiles.md › What a translated request gets).
   */
  reasoning?: {
    effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max'
    budgetTokens?: number
    enabled?: boolean
  }
  stream: boolean
  /** The client wants the usage chunk (OpenAI `stream_options.include_usage`). */
  streamUsage?: boolean
  /** An end-user id (OpenAI `user`, Anthropic `metadata.user_id`). */
  user?: string
}

/**
 * Token usage. `undefined` means "not reported", never a silent zero.
 * `input.total` includes cached input (read and written); `output.total` includes reasoning.
 * `uncached + cacheRead + cacheWrite = total`. `cacheWrite` counts every cache write; `cacheWrite1h`
 * is the part of it kept an hour (Anthropic's `ephemeral_1h_input_tokens`, priced higher than the
 * 5-minute writes), so that a later snapshot naming only the writes' total (Anthropic's
 * `message_delta`) leaves the split as it was.
 */
export type Usage = {
  input: {
    total?: number
    uncached?: number
    cacheRead?: number
    cacheWrite?: number
    cacheWrite1h?: number
  }
  output: { total?: number; reasoning?: number }
}

export type FinishReason = {
  unified: 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other'
  /** The upstream's own value, restored when the client speaks the same protocol. */
  raw?: string
}

/** A complete (non-stream) answer in canonical form. */
export type ChatResponse = {
  id: string
  model: string
  content: Array<TextPart | ReasoningPart | ToolCallPart>
  finishReason: FinishReason
  stopSequence?: string
  /** A refusal explanation, when the model refused. */
  refusal?: string
  usage: Usage
}

/**
 * Stream events. `index` numbers content blocks 0, 1, 2… in the order they start; blocks never
 * interleave (a block ends before the next starts), which every encoder may rely on. Decoders of
 * protocols without block events synthesise start and end.
 */
export type StreamEvent =
  | { type: 'message-start'; id: string; model: string; usage?: Usage }
  | { type: 'text-start'; index: number }
  | { type: 'text-delta'; index: number; delta: string }
  | { type: 'text-end'; index: number }
  | { type: 'reasoning-start'; index: number; redacted?: Signed }
  | { type: 'reasoning-delta'; index: number; delta: string }
  | { type: 'reasoning-end'; index: number; signature?: Signed }
  | { type: 'tool-call-start'; index: number; id: string; name: string; signature?: Signed }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | { type: 'tool-call-end'; index: number }
  /** A cumulative usage snapshot; the last one wins. */
  | { type: 'usage'; usage: Usage }
  | {
      type: 'finish'
      finishReason: FinishReason
      stopSequence?: string
      refusal?: string
      usage: Usage
    }
  | { type: 'error'; error: GatewayError }
