import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * Qwen on Alibaba Cloud Model Studio (DashScope's OpenAI-compatible mode): hybrid Qwen3 models
 * switch thinking with `enable_thinking`; QwQ and the `-thinking` models always think; JSON mode
 * (`json_object`). Served by vLLM, Qwen3 takes the switch in `chat_template_kwargs` instead:
 * override `reasoning` there. The thinking models return `reasoning_content`, and Qwen3's chat
 * template renders the reasoning of the assistant turns of the current tool loop when it is given
 * back, so earlier reasoning goes back (`reasoningHistory`).
 *
 * @see https://www.alibabacloud.com/help/en/model-studio/models
 * @see https://www.alibabacloud.com/help/en/model-studio/deep-thinking
 * @see https://docs.qwencloud.com/developer-guides/text-generation/thinking
 */
const qwen: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 131_072,
  maxOutputTokens: 16_384,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'toggle', field: 'enable_thinking' },
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

const page = 'https://www.alibabacloud.com/help/en/model-studio/models'

export const qwenModels: readonly ModelProfileEntry[] = [
  {
    ...qwen,
    match: ['qwen3*', 'qwen-plus*', 'qwen-flash*', 'qwen-turbo*'],
    family: 'qwen3',
    see: page,
  },
  {
    ...qwen,
    match: ['qwen3-max*', 'qwen-max*'],
    family: 'qwen3-max',
    contextWindow: 262_144,
    maxOutputTokens: 65_536,
    see: page,
  },
  {
    ...qwen,
    match: ['qwen3-coder*'],
    family: 'qwen3-coder',
    contextWindow: 262_144,
    maxOutputTokens: 65_536,
    reasoning: { kind: 'none' },
    reasoningHistory: false,
    see: page,
  },
  { ...qwen, match: ['qwq*'], family: 'qwq', reasoning: { kind: 'always' }, see: page },
  {
    ...qwen,
    match: ['qwen3*-thinking*'],
    family: 'qwen3-thinking',
    reasoning: { kind: 'always' },
    see: 'https://docs.qwencloud.com/developer-guides/text-generation/thinking',
  },
  {
    ...qwen,
    match: ['qwen2*', 'qwen-2*'],
    family: 'qwen2.5',
    maxOutputTokens: 8_192,
    reasoning: { kind: 'none' },
    reasoningHistory: false,
    see: page,
  },
  {
    ...qwen,
    match: ['qwen*-vl*'],
    family: 'qwen-vl',
    imageInput: true,
    see: page,
  },
]
