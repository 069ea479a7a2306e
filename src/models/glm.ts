import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * Zhipu GLM (Z.ai): thinking switched with `thinking: {type: "enabled" | "disabled"}` (on by
 * default from GLM-4.7); JSON mode (`json_object`); text only except the `v` models. From GLM-4.5
 * the models think between tool calls (interleaved thinking), and Z.ai asks for the reasoning to
 * be returned with the tool results, so earlier reasoning goes back (`reasoningHistory`). GLM-4.7
 * and GLM-5 keep it across turns — preserved thinking — when asked with `clear_thinking: false`,
 * which the gateway sends whenever it turns their thinking on (Z.ai's advice for coding agents).
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
  reasoningHistory: true,
  reasoningField: 'reasoning_content',
}

const thinkingMode = 'https://docs.z.ai/guides/capabilities/thinking-mode'

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
    match: ['glm-4.7*', 'glm-5*'],
    family: 'glm-4.7',
    reasoning: { kind: 'toggle', field: 'thinking', clearThinking: false },
    see: thinkingMode,
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
