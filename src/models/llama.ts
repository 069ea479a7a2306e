import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * Meta Llama served by vLLM, Ollama or another OpenAI-compatible server (names such as
 * `meta-llama/Llama-3.3-70B-Instruct` or `llama3.1:8b`). The context a server allows is its own
 * setting, often below the model's; override `contextWindow` and `maxOutputTokens` to match.
 * vLLM and Ollama both constrain output to a JSON Schema.
 *
 * @see https://www.llama.com/docs/model-cards-and-prompt-formats/
 * @see https://docs.vllm.ai/en/latest/features/structured_outputs.html
 */
const llama: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 131_072,
  maxOutputTokens: undefined,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'none' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 2,
  structuredOutput: 'schema',
  forcedToolChoice: true,
  imageInput: false,
  documentInput: false,
  reasoningHistory: false,
  reasoningField: 'reasoning_content',
}

const cards = 'https://www.llama.com/docs/model-cards-and-prompt-formats/'

export const llamaModels: readonly ModelProfileEntry[] = [
  { ...llama, match: ['*llama-3*', '*llama3*'], family: 'llama-3', see: cards },
  {
    ...llama,
    match: ['*llama-3.2*vision*', '*llama3.2-vision*'],
    family: 'llama-3.2-vision',
    imageInput: true,
    see: cards,
  },
  {
    ...llama,
    match: ['*llama-4*', '*llama4*'],
    family: 'llama-4',
    contextWindow: undefined,
    imageInput: true,
    see: cards,
  },
]
