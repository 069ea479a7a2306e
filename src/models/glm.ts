import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * Zhipu GLM (Z.ai): thinking switched with `thinking: {type: "enabled" | "disabled"}`; JSON mode
 * (`json_object`); text only except the `v` models.
 *
 * @see https://docs.z.ai/guides/llm/glm-4.6
 * @see https://docs.z.ai/guides/capabilities/thinking-mode
 */
const glm: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 200_000,
  maxOutputTokens: 128_000,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'toggle', field: 'thinking' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 1,
  structuredOutput: 'json',
  forcedToolChoice: true,
  imageInput: false,
  documentInput: false,
  reasoningHistory: false,
}

export const glmModels: readonly ModelProfileEntry[] = [
  { ...glm, match: ['glm-*'], family: 'glm', see: 'https://docs.z.ai/guides/llm/glm-4.6' },
  {
    ...glm,
    match: ['glm-4.5*'],
    family: 'glm-4.5',
    contextWindow: 128_000,
    maxOutputTokens: 96_000,
    see: 'https://docs.z.ai/guides/llm/glm-4.5',
  },
  {
    ...glm,
    match: ['glm-4v*', 'glm-4.5v*', 'glm-4.6v*'],
    family: 'glm-4.5v',
    contextWindow: 64_000,
    maxOutputTokens: 16_384,
    imageInput: true,
    see: 'https://docs.z.ai/guides/vlm/glm-4.5v',
  },
]
