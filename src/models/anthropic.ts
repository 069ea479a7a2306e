import type { ModelProfile, ModelProfileEntry, ReasoningEffort } from './profile'

/**
 * Claude models. Patterns cover dated snapshots (`claude-sonnet-4-5-20250929`), `-latest` aliases,
 * OpenRouter's dotted names (`claude-sonnet-4.5`), Bedrock ids and Vertex `@` versions (see
 * `normalizeModelName`). Manual thinking (`budget_tokens` ≥ 1024) is the only mode up to 4.5,
 * deprecated on 4.6, refused from 4.7; non-default sampling is refused from Opus 4.7 and the
 * Claude 5 family; Opus 5.5 and Fable 5.1 cannot turn thinking off and refuse forced tool use.
 *
 * @see https://platform.claude.com/docs/en/about-claude/models/overview
 * @see https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting
 */
const claude: Omit<ModelProfile, 'family' | 'contextWindow' | 'maxOutputTokens' | 'see'> = {
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'none' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 1,
  structuredOutput: 'tool',
  forcedToolChoice: true,
  imageInput: true,
  documentInput: true,
  reasoningHistory: false,
  reasoningField: 'reasoning_content',
}

/** Manual extended thinking: `budget_tokens` from 1024 (and below `max_tokens`). */
const budget = { kind: 'budget', min: 1024, canDisable: true } as const
/** 4.5 models: native structured output; `temperature` and `top_p` exclusive. */
const claude45 = {
  ...claude,
  reasoning: budget,
  structuredOutput: 'schema',
  temperatureOrTopP: true,
} as const
const toMax: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'max']
const toMaxWithX: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'xhigh', 'max']
/** Claude 4.7 and later: adaptive thinking only, no sampling fields. */
const adaptiveOnly = {
  ...claude,
  reasoning: { kind: 'adaptive', efforts: toMaxWithX, canDisable: true },
  sampling: 'none',
  structuredOutput: 'schema',
} as const
/** Thinking always on, forced tool use refused (Opus 5.5, Sonnet 5.5, Fable 5.1). */
const alwaysThinking = {
  ...adaptiveOnly,
  reasoning: { kind: 'adaptive', efforts: toMaxWithX, canDisable: false },
  forcedToolChoice: false,
} as const

const page = (name: string) => `https://platform.claude.com/docs/en/models/${name}/overview`

export const anthropicModels: readonly ModelProfileEntry[] = [
  {
    ...claude,
    match: [
      'claude-2*',
      'claude-instant*',
      'claude-3-haiku*',
      'claude-3-opus*',
      'claude-3-sonnet*',
    ],
    family: 'claude-3',
    contextWindow: 200_000,
    maxOutputTokens: 4_096,
    see: 'https://platform.claude.com/docs/en/about-claude/models/overview',
  },
  {
    ...claude,
    match: ['claude-3-5-*', 'claude-3.5-*'],
    family: 'claude-3-5',
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
    see: 'https://platform.claude.com/docs/en/about-claude/models/overview',
  },
  {
    ...claude,
    match: ['claude-3-7-sonnet*', 'claude-3.7-sonnet*'],
    family: 'claude-3-7-sonnet',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    reasoning: budget,
    see: 'https://platform.claude.com/docs/en/about-claude/models/overview',
  },
  {
    ...claude,
    match: ['claude-sonnet-4*', 'claude-4-sonnet*'],
    family: 'claude-sonnet-4',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    reasoning: budget,
    see: 'https://platform.claude.com/docs/en/about-claude/models/overview',
  },
  {
    ...claude,
    match: ['claude-opus-4*', 'claude-4-opus*'],
    family: 'claude-opus-4',
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
    reasoning: budget,
    see: 'https://platform.claude.com/docs/en/about-claude/models/overview',
  },
  {
    ...claude,
    match: ['claude-opus-4-1*', 'claude-opus-4.1*'],
    family: 'claude-opus-4-1',
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
    reasoning: budget,
    temperatureOrTopP: true,
    see: page('opus-4-1'),
  },
  {
    ...claude45,
    match: ['claude-sonnet-4-5*', 'claude-sonnet-4.5*'],
    family: 'claude-sonnet-4-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    see: page('sonnet-4-5'),
  },
  {
    ...claude45,
    match: ['claude-haiku-4-5*', 'claude-haiku-4.5*'],
    family: 'claude-haiku-4-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    see: page('haiku-4-5'),
  },
  {
    ...claude45,
    match: ['claude-opus-4-5*', 'claude-opus-4.5*'],
    family: 'claude-opus-4-5',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    see: page('opus-4-5'),
  },
  {
    ...claude45,
    match: ['claude-sonnet-4-6*', 'claude-sonnet-4.6*'],
    family: 'claude-sonnet-4-6',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    reasoning: { kind: 'adaptive', efforts: toMax, canDisable: true },
    see: page('sonnet-4-6'),
  },
  {
    ...claude45,
    match: ['claude-opus-4-6*', 'claude-opus-4.6*'],
    family: 'claude-opus-4-6',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    reasoning: { kind: 'adaptive', efforts: toMax, canDisable: true },
    see: page('opus-4-6'),
  },
  {
    ...adaptiveOnly,
    match: ['claude-opus-4-7*', 'claude-opus-4.7*', 'claude-opus-4-8*', 'claude-opus-4.8*'],
    family: 'claude-opus-4-7',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    see: page('opus-4-7'),
  },
  {
    ...adaptiveOnly,
    match: ['claude-sonnet-5*', 'claude-opus-5*', 'claude-haiku-5*'],
    family: 'claude-5',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    see: page('opus-5'),
  },
  {
    ...alwaysThinking,
    match: ['claude-opus-5-5*', 'claude-opus-5.5*', 'claude-sonnet-5-5*', 'claude-sonnet-5.5*'],
    family: 'claude-5-5',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    see: page('opus-5-5'),
  },
  {
    ...alwaysThinking,
    match: ['claude-fable*', 'claude-mythos*'],
    family: 'claude-fable-5',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    forcedToolChoice: true,
    see: page('fable-5'),
  },
  {
    ...alwaysThinking,
    match: ['claude-fable-5-1*', 'claude-fable-5-2*', 'claude-mythos-5-1*', 'claude-mythos-5-2*'],
    family: 'claude-fable-5-1',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    see: page('fable-5-1'),
  },
  {
    ...adaptiveOnly,
    match: ['claude*'],
    family: 'claude',
    contextWindow: undefined,
    maxOutputTokens: undefined,
    see: 'https://platform.claude.com/docs/en/about-claude/models/overview',
  },
]
