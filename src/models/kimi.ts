import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * Kimi (Moonshot AI): temperature 0–1; JSON mode (`json_object`). `kimi-k2-thinking` (and its
 * turbo) always thinks; `kimi-k2.5` and `kimi-k2.6` think unless `thinking: {type: "disabled"}`,
 * and take images. The thinking models return their reasoning in `reasoning_content` and need it
 * back in multi-step tool calls, or the API refuses the next step.
 *
 * @see https://platform.moonshot.ai/docs/introduction
 * @see https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model
 */
const kimi: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 262_144,
  maxOutputTokens: undefined,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'none' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 1,
  structuredOutput: 'json',
  forcedToolChoice: true,
  imageInput: false,
  documentInput: false,
  reasoningHistory: false,
  reasoningField: 'reasoning_content',
}

const thinkingModels = 'https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model'

export const kimiModels: readonly ModelProfileEntry[] = [
  {
    ...kimi,
    match: ['kimi-*'],
    family: 'kimi-k2',
    see: 'https://platform.moonshot.ai/docs/introduction',
  },
  {
    ...kimi,
    match: ['kimi-k2*-thinking*'],
    family: 'kimi-k2-thinking',
    reasoning: { kind: 'always' },
    reasoningHistory: true,
    see: thinkingModels,
  },
  {
    ...kimi,
    match: ['kimi-k2.5*', 'kimi-k2-5*', 'kimi-k2.6*', 'kimi-k2-6*'],
    family: 'kimi-k2.5',
    reasoning: { kind: 'toggle', field: 'thinking' },
    reasoningHistory: true,
    imageInput: true,
    see: thinkingModels,
  },
  {
    ...kimi,
    match: ['moonshot-v1*'],
    family: 'moonshot-v1',
    contextWindow: 131_072,
    see: 'https://platform.moonshot.ai/docs/introduction',
  },
]
