import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * DeepSeek on its own API (V3.2): `deepseek-chat` turns thinking on with `thinking: {type:
 * "enabled"}`, `deepseek-reasoner` always thinks and needs its `reasoning_content` back in a tool
 * loop (checklist TOOL-H-11); both give JSON mode only (`json_object`), no images. Self-hosted R1
 * (vLLM, Ollama) always thinks and takes no field for it.
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
  reasoningHistory: false,
}

export const deepseekModels: readonly ModelProfileEntry[] = [
  {
    ...deepseek,
    match: ['deepseek-chat*', 'deepseek-v3*'],
    family: 'deepseek-chat',
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
    reasoningHistory: true,
    see: 'https://api-docs.deepseek.com/guides/thinking_mode',
  },
  {
    ...deepseek,
    match: ['deepseek-r1*'],
    family: 'deepseek-r1',
    maxOutputTokens: undefined,
    reasoning: { kind: 'always' },
    structuredOutput: 'schema',
    see: 'https://api-docs.deepseek.com/guides/reasoning_model',
  },
]
