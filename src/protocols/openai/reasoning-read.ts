import { isJsonObject } from '../../internal/json'
import type { ReasoningField } from './reasoning-origin'

/** Reasoning as an OpenAI-compatible server wrote it in a message or a stream delta. */
export type WireReasoning = {
  field: ReasoningField
  text: string
  /** The first `reasoning_details` text entry's other members. */
  detail?: Record<string, unknown>
}

/**
 * The reasoning of a `message` or a stream `delta`: `reasoning_content` (DeepSeek, Kimi, GLM,
 * Qwen), else `reasoning` (vLLM, OpenRouter, Cerebras), else the text entries of
 * `reasoning_details` (MiniMax with `reasoning_split: true`; in streams each entry's `text` is the
 * new part, as MiniMax sends it). Servers that send two fields send the same text twice: the first
 * non-empty one is taken. `undefined` when there is none.
 *
 * @see https://api-docs.deepseek.com/guides/thinking_mode
 * @see https://platform.minimax.io/docs/api-reference/text-openai-api
 */
export function readWireReasoning(object: Record<string, unknown>): WireReasoning | undefined {
  for (const field of ['reasoning_content', 'reasoning'] as const) {
    const value = object[field]
    if (typeof value === 'string' && value !== '') return { field, text: value }
  }
  const details = object['reasoning_details']
  if (!Array.isArray(details)) return undefined
  let text = ''
  let detail: Record<string, unknown> | undefined
  for (const entry of details) {
    if (!isJsonObject(entry) || entry['type'] !== 'reasoning.text') continue
    if (typeof entry['text'] !== 'string') continue
    text += entry['text']
    if (detail === undefined) {
      const { text: _text, ...rest } = entry
      detail = rest
    }
  }
  return text === ''
    ? undefined
    : { field: 'reasoning_details', text, ...(detail ? { detail } : {}) }
}
