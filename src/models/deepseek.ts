import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * DeepSeek on its own API. `deepseek-chat` (V3.2, non-thinking) turns thinking on with
 * `thinking: {type: "enabled"}`; `deepseek-reasoner` always thinks; V4 (`deepseek-v4-pro`,
 * `deepseek-v4-flash`) thinks unless turned off. In thinking mode an assistant turn with tool
 * calls needs its `reasoning_content` back in every later request, or the API answers 400
 * (TOOL-H-11); between user turns without tool calls it is ignored. So every model of
 * the API takes earlier reasoning back (`reasoningHistory`); the reasoning a model returned goes
 * back to it in any case (ADR 0018). JSON mode only (`json_object`), no images. Self-hosted R1
 * (vLLM, Ollama) always thinks, takes no field for it, and its template drops earlier reasoning.
 *
 * @see https://api-docs.deepseek.com/quick_start/pricing
 * @see https://api-docs.deepseek.com/guides/thinking_mode
 */
const deepseek: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 128_000,
  maxOutputTokens: 8_192,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'toggle', field: 'thinking' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 2,
  structuredOutput: 'json',
  forcedToolChoice: true,
  imageInput: false,
  documentInput: false,
  reasoningHistory: true,
  reasoningField: 'reasoning_content',
}

const thinkingMode = 'https://api-docs.deepseek.com/guides/thinking_mode'

export const deepseekModels: readonly ModelProfileEntry[] = [
  {
    ...deepseek,
    match: ['deepseek-chat*', 'deepseek-v3*'],
    family: 'deepseek-chat',
    see: thinkingMode,
  },
  {
    ...deepseek,
    match: ['deepseek-v4*'],
    family: 'deepseek-v4',
    contextWindow: 1_000_000,
    maxOutputTokens: 384_000,
    see: 'https://api-docs.deepseek.com/quick_start/pricing',
  },
  {
    ...deepseek,
    match: ['deepseek-reasoner*'],
    family: 'deepseek-reasoner',
    maxOutputTokens: 65_536,
    reasoning: { kind: 'always' },
    // Sampling fields have no effect in thinking mode; they are not sent.
    sampling: 'none',
    see: thinkingMode,
  },
  {
    ...deepseek,
    match: ['deepseek-r1*'],
    family: 'deepseek-r1',
    maxOutputTokens: undefined,
    reasoning: { kind: 'always' },
    structuredOutput: 'schema',
    reasoningHistory: false,
    see: 'https://api-docs.deepseek.com/guides/reasoning_model',
  },
]
