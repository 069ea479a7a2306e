import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * MiniMax M2 (`MiniMax-M2`, `-M2.1`, `-M2.5`, `-M2.7` and their `-highspeed` / `-Stable` variants)
 * on MiniMax's OpenAI-compatible API. The models always think, between tool calls too
 * (interleaved thinking); asked with `reasoning_split: true` they return the thinking apart from
 * the answer, in `reasoning_details` (`[{type: "reasoning.text", id, format, index, text}]`),
 * and MiniMax asks for the whole assistant message — `reasoning_details` included — to be kept in
 * the history of a tool loop. Without the flag the thinking is `<think>` text inside `content`.
 * Temperature is (0, 1]. Structured output is not documented for the OpenAI-compatible API: the
 * schema goes as an instruction.
 *
 * @see https://platform.minimax.io/docs/api-reference/text-openai-api
 */
const minimax: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 204_800,
  maxOutputTokens: undefined,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'always' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 1,
  structuredOutput: 'none',
  forcedToolChoice: true,
  imageInput: false,
  documentInput: false,
  reasoningHistory: true,
  reasoningField: 'reasoning_details',
}

export const minimaxModels: readonly ModelProfileEntry[] = [
  {
    ...minimax,
    match: ['minimax-m2*'],
    family: 'minimax-m2',
    see: 'https://platform.minimax.io/docs/api-reference/text-openai-api',
  },
]
