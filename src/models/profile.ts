/**
 * What the translator needs to know about the model on the other side of a call: its limits, how
 * it is asked to reason, which sampling fields it refuses, how it does structured output and what
 * input it takes. The built-in table (one file per vendor family in this folder) is data; an
 * operator overrides any field per model in the config (`groups[].models[].profile`).
 *
 * A profile describes the model, not the wire: the encoder of the group's protocol turns it into
 * that protocol's fields. A control of another protocol (a Claude budget on an `openai` group
 * served by a router, say) is translated plainly, as for an unknown model.
 *
 * @module
 */

/** Reasoning efforts, in increasing order (OpenAI `reasoning_effort`, Anthropic `effort`). */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max'

/**
 * The assistant-message fields in which OpenAI-compatible servers hand out reasoning, and take it
 * back: `reasoning_content` (DeepSeek, Kimi, GLM, Qwen, vLLM before 0.11), `reasoning` (vLLM,
 * OpenRouter, Cerebras, Groq) and `reasoning_details` (MiniMax with `reasoning_split`).
 */
export type ReasoningField = 'reasoning_content' | 'reasoning' | 'reasoning_details'

/** Gemini 3 `thinkingLevel` values, in increasing order. */
export type ThinkingLevel = 'minimal' | 'low' | 'medium' | 'high'

/**
 * How a model is asked to reason.
 *
 * - `any`: unknown; the wire's plain mapping is sent and nothing is clamped.
 * - `none`: the model does not reason; reasoning fields are dropped.
 * - `always`: the model reasons on its own and takes no reasoning field (o1-mini, DeepSeek R1).
 * - `effort`: OpenAI `reasoning_effort`, with the values the model accepts (`none` among them
 *   means reasoning can be turned off).
 * - `budget`: a thinking token budget — Anthropic `thinking.budget_tokens`, Gemini 2.5
 *   `thinkingBudget` — within `min`…`max`; `canDisable` says whether thinking can be turned off,
 *   `dynamic` whether Gemini's `-1` (the model decides) is accepted.
 * - `adaptive`: Anthropic `thinking: {type: "adaptive"}` with `output_config.effort`.
 * - `level`: Gemini 3 `thinkingLevel`; thinking cannot be turned off.
 * - `toggle`: on/off only — `thinking: {type: "enabled" | "disabled"}` (DeepSeek, GLM, Kimi) or
 *   `enable_thinking: true | false` (Qwen on DashScope). `clearThinking: false` adds GLM's
 *   `clear_thinking: false` when thinking is turned on: its preserved thinking, where the model
 *   reads the reasoning of earlier turns it is given back.
 */
export type ReasoningControl =
  | { kind: 'any' }
  | { kind: 'none' }
  | { kind: 'always' }
  | { kind: 'effort'; efforts: readonly ReasoningEffort[] }
  | { kind: 'budget'; min: number; max?: number; canDisable: boolean; dynamic?: boolean }
  | { kind: 'adaptive'; efforts: readonly ReasoningEffort[]; canDisable: boolean }
  | { kind: 'level'; levels: readonly ThinkingLevel[] }
  | { kind: 'toggle'; field: 'thinking' | 'enable_thinking'; clearThinking?: boolean }

/**
 * How a model gives structured output: `schema` constrains the answer to a JSON Schema
 * (OpenAI `json_schema`, Anthropic `output_config.format`, Gemini `responseJsonSchema`); `json`
 * promises only valid JSON (`json_object`), so the schema travels as an instruction; `tool` is a
 * forced single tool whose input is the answer (older Claude models); `none` has only the
 * instruction.
 */
export type StructuredOutputSupport = 'schema' | 'json' | 'tool' | 'none'

/** A model's profile, resolved: every field has a value. */
export type ModelProfile = {
  /** The table entry that matched (`gpt-4.1`, `claude-sonnet-4-5`), or `unknown`. */
  family: string
  /** Input plus output tokens the model can hold; `undefined` when unknown. */
  contextWindow: number | undefined
  /** The most output tokens one answer may have; `undefined` when unknown. */
  maxOutputTokens: number | undefined
  /**
   * The output-limit field on an OpenAI-style wire: reasoning models refuse `max_tokens` and
   * take `max_completion_tokens`; OpenAI-compatible servers take `max_tokens` most widely.
   */
  outputLimitField: 'max_tokens' | 'max_completion_tokens'
  reasoning: ReasoningControl
  /**
   * The sampling fields (`temperature`, `top_p`, `top_k`) the model takes: `all`; `none` — any
   * non-default value is refused; `unless-reasoning` — refused while the model reasons.
   */
  sampling: 'all' | 'none' | 'unless-reasoning'
  /** `temperature` and `top_p` may not both be sent (Claude 4.1 – 4.6). */
  temperatureOrTopP: boolean
  /** The highest `temperature` accepted (Anthropic and Kimi: 1). */
  maxTemperature: number
  structuredOutput: StructuredOutputSupport
  /** Whether a tool choice that forces a tool is accepted (Claude Opus 5.5 and Fable 5.1 refuse it). */
  forcedToolChoice: boolean
  /**
   * `false`: the model takes no tools, and a request with tools is refused with 400 (DeepSeek R1
   * on Bedrock's Converse API). Absent: it takes them.
   */
  toolUse?: boolean | undefined
  /** Whether images are accepted as input. */
  imageInput: boolean
  /** Whether documents (PDF) are accepted as input. */
  documentInput: boolean
  /**
   * Whether earlier reasoning the gateway did not get from this model goes back on assistant
   * messages, in `reasoningField` (DeepSeek and Kimi thinking models refuse a tool loop without
   * it: TOOL-H-11; GLM, Qwen and MiniMax think better with it). Reasoning this model
   * handed out goes back to it whatever this says (ADR 0018).
   */
  reasoningHistory: boolean
  /**
   * The assistant-message field the model returns its reasoning in and takes it back in.
   * `reasoning_details` (MiniMax) is asked for with `reasoning_split: true`.
   */
  reasoningField: ReasoningField
  /** The vendor's page for the numbers. */
  see: string | undefined
  /** What an embedding model gives: present only for models that embed. */
  embedding?: EmbeddingProfile | undefined
}

/** An embedding model's vectors and input limit. */
export type EmbeddingProfile = {
  /** The length of its vectors by default. */
  dimensions: number
  /** Whether it takes a smaller `dimensions` / `outputDimensionality` (Matryoshka models). */
  shortens: boolean
  /** The most tokens one input may hold. */
  maxInputTokens: number
}

/** The fields an operator may set per model entry; each replaces the table's value. */
export type ModelProfileOverrides = Partial<Omit<ModelProfile, 'family' | 'see'>>

/**
 * One entry of the built-in table: glob patterns over normalised upstream model names (`*` any
 * run of characters; see `matchModelProfile`), and the profile they give.
 */
export type ModelProfileEntry = ModelProfile & { match: readonly string[] }

/** The profile of a model no table entry matches: lenient, so nothing is refused or clamped. */
export const unknownModelProfile: ModelProfile = {
  family: 'unknown',
  contextWindow: undefined,
  maxOutputTokens: undefined,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'any' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 2,
  structuredOutput: 'schema',
  forcedToolChoice: true,
  imageInput: true,
  documentInput: true,
  reasoningHistory: false,
  reasoningField: 'reasoning_content',
  see: undefined,
}
