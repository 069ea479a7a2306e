import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * Kimi (Moonshot AI): temperature 0–1; the thinking models always think and need their
 * `reasoning_content` back in a tool loop; JSON mode (`json_object`).
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
}

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
    see: 'https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model',
  },
  {
    ...kimi,
    match: ['kimi-k2.5*', 'kimi-k2-5*'],
    family: 'kimi-k2.5',
    reasoning: { kind: 'toggle', field: 'thinking' },
    reasoningHistory: true,
    imageInput: true,
    see: 'https://platform.moonshot.ai/docs/introduction',
  },
  {
    ...kimi,
    match: ['moonshot-v1*'],
    family: 'moonshot-v1',
    contextWindow: 131_072,
    see: 'https://platform.moonshot.ai/docs/introduction',
  },
]
