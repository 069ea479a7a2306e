import type { ModelProfile, ModelProfileEntry } from './profile'

/**
 * Models served on AWS Bedrock over the Converse API (`converse` groups): Amazon Nova, Meta Llama,
 * Mistral, DeepSeek. Their ids (`amazon.nova-pro-v1:0`, `us.meta.llama4-maverick-17b-instruct-v1:0`,
 * `deepseek.r1-v1:0`) are matched without their region and vendor prefix and version suffix
 * (`nova-pro`, `llama4-maverick-17b-instruct`, `r1`). Qwen3 on Bedrock (`qwen.qwen3-32b-v1:0`)
 * matches the Qwen entries (`qwen.ts`).
 *
 * On Converse, `temperature` and `topP` are 0–1 for every model; a forced tool choice (`any`,
 * `tool`) is taken only by Nova, Mistral Large and Claude; Nova and Claude take cache points. A
 * JSON answer goes as an instruction (Converse has no answer format).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html
 * @see https://docs.aws.amazon.com/nova/latest/userguide/what-is-nova.html
 */
const converse: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 128_000,
  maxOutputTokens: undefined,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'none' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 1,
  structuredOutput: 'none',
  forcedToolChoice: false,
  imageInput: false,
  documentInput: false,
  reasoningHistory: false,
  reasoningField: 'reasoning_content',
}

const features =
  'https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html'
const nova = 'https://docs.aws.amazon.com/nova/latest/userguide/what-is-nova.html'
const nova2 = 'https://docs.aws.amazon.com/nova/latest/nova2-userguide/what-is-nova-2.html'

/** Amazon Nova 1: tools with forced choice, prompt caching; Micro reads text only. */
const novaBase = { ...converse, forcedToolChoice: true, maxOutputTokens: 10_000 }

export const bedrockModels: readonly ModelProfileEntry[] = [
  { ...novaBase, match: ['nova-micro*'], family: 'nova-micro', see: nova },
  {
    ...novaBase,
    match: ['nova-lite*'],
    family: 'nova-lite',
    contextWindow: 300_000,
    imageInput: true,
    documentInput: true,
    see: nova,
  },
  {
    ...novaBase,
    match: ['nova-pro*'],
    family: 'nova-pro',
    contextWindow: 300_000,
    imageInput: true,
    documentInput: true,
    see: nova,
  },
  {
    ...novaBase,
    match: ['nova-premier*'],
    family: 'nova-premier',
    contextWindow: 1_000_000,
    maxOutputTokens: 32_000,
    imageInput: true,
    documentInput: true,
    see: nova,
  },
  {
    // Nova 2 reasons when asked, with `reasoningConfig.maxReasoningEffort`.
    ...novaBase,
    match: ['nova-2-lite*'],
    family: 'nova-2-lite',
    contextWindow: 1_000_000,
    maxOutputTokens: 65_536,
    reasoning: { kind: 'effort', efforts: ['none', 'low', 'medium', 'high'] },
    imageInput: true,
    documentInput: true,
    see: nova2,
  },
  // Llama 3 (the first release) has no tool use on Converse; 3.1 and later do, never forced.
  {
    ...converse,
    match: ['llama3-8b-instruct*', 'llama3-70b-instruct*'],
    family: 'llama-3-bedrock',
    contextWindow: 8_192,
    maxOutputTokens: 2_048,
    toolUse: false,
    see: features,
  },
  {
    ...converse,
    match: ['llama3-1-*', 'llama3-3-*', 'llama3-2-1b-*', 'llama3-2-3b-*'],
    family: 'llama-3.1-bedrock',
    see: features,
  },
  {
    ...converse,
    match: ['llama3-2-11b-*', 'llama3-2-90b-*'],
    family: 'llama-3.2-vision-bedrock',
    imageInput: true,
    see: features,
  },
  {
    ...converse,
    match: ['llama4-scout-*'],
    family: 'llama-4-scout-bedrock',
    contextWindow: 3_500_000,
    imageInput: true,
    see: features,
  },
  {
    ...converse,
    match: ['llama4-maverick-*'],
    family: 'llama-4-maverick-bedrock',
    contextWindow: 1_000_000,
    imageInput: true,
    see: features,
  },
  {
    ...converse,
    match: ['mistral-large-*'],
    family: 'mistral-large',
    forcedToolChoice: true,
    documentInput: true,
    see: features,
  },
  {
    ...converse,
    match: ['pixtral-large-*'],
    family: 'pixtral-large',
    forcedToolChoice: true,
    imageInput: true,
    documentInput: true,
    see: features,
  },
  // DeepSeek R1 on Bedrock reasons on its own and takes no tools; V3 takes tools.
  {
    ...converse,
    match: ['r1'],
    family: 'deepseek-r1-bedrock',
    maxOutputTokens: 32_768,
    reasoning: { kind: 'always' },
    toolUse: false,
    see: features,
  },
  { ...converse, match: ['v3', 'v3.*'], family: 'deepseek-v3-bedrock', see: features },
]
