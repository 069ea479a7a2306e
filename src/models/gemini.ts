import type { ModelProfile, ModelProfileEntry, ThinkingLevel } from './profile'

/**
 * Gemini models. 2.5 models take a `thinkingBudget` in a per-family range (2.5 Pro 128–32768 and
 * cannot turn thinking off; Flash 0–24576; Flash-Lite 0 or 512–24576; `-1` is dynamic on all);
 * Gemini 3 takes a `thinkingLevel` (3 Pro: low, high; later Pro: low, medium, high; Flash and
 * Flash-Lite: minimal to high) and cannot turn thinking off. Numbers from Google's model pages.
 *
 * @see https://ai.google.dev/gemini-api/docs/models
 * @see https://ai.google.dev/gemini-api/docs/thinking
 */
const gemini: Omit<ModelProfile, 'family' | 'see'> = {
  contextWindow: 1_048_576,
  maxOutputTokens: 65_536,
  outputLimitField: 'max_tokens',
  reasoning: { kind: 'none' },
  sampling: 'all',
  temperatureOrTopP: false,
  maxTemperature: 2,
  structuredOutput: 'schema',
  forcedToolChoice: true,
  imageInput: true,
  documentInput: true,
  reasoningHistory: false,
  reasoningField: 'reasoning_content',
}

const allLevels: readonly ThinkingLevel[] = ['minimal', 'low', 'medium', 'high']
const page = (name: string) => `https://ai.google.dev/gemini-api/docs/models/${name}`

export const geminiModels: readonly ModelProfileEntry[] = [
  {
    ...gemini,
    match: ['gemini-1.5*', 'gemini-2.0*'],
    family: 'gemini-2.0-flash',
    maxOutputTokens: 8_192,
    see: page('gemini-2.0-flash'),
  },
  {
    ...gemini,
    match: ['gemini-2.5-pro*'],
    family: 'gemini-2.5-pro',
    reasoning: { kind: 'budget', min: 128, max: 32_768, canDisable: false, dynamic: true },
    see: page('gemini-2.5-pro'),
  },
  {
    ...gemini,
    match: ['gemini-2.5-flash*'],
    family: 'gemini-2.5-flash',
    reasoning: { kind: 'budget', min: 1, max: 24_576, canDisable: true, dynamic: true },
    see: page('gemini-2.5-flash'),
  },
  {
    ...gemini,
    match: ['gemini-2.5-flash-lite*'],
    family: 'gemini-2.5-flash-lite',
    reasoning: { kind: 'budget', min: 512, max: 24_576, canDisable: true, dynamic: true },
    see: page('gemini-2.5-flash-lite'),
  },
  {
    ...gemini,
    match: ['gemini-3*'],
    family: 'gemini-3',
    reasoning: { kind: 'level', levels: ['low', 'high'] },
    see: page('gemini-3-pro-preview'),
  },
  {
    ...gemini,
    match: ['gemini-3.*-pro*', 'gemini-pro-latest'],
    family: 'gemini-3.1-pro',
    reasoning: { kind: 'level', levels: ['low', 'medium', 'high'] },
    see: page('gemini-3.1-pro-preview'),
  },
  {
    ...gemini,
    match: ['gemini-3*-flash*', 'gemini-flash-latest', 'gemini-flash-lite-latest'],
    family: 'gemini-3-flash',
    reasoning: { kind: 'level', levels: allLevels },
    see: page('gemini-3-flash-preview'),
  },
  {
    ...gemini,
    match: ['gemini-3.5-flash-lite*'],
    family: 'gemini-3.5-flash-lite',
    reasoning: { kind: 'level', levels: allLevels },
    // Custom temperature, top-k and top-p are ignored by this model; they are not sent.
    sampling: 'none',
    see: page('gemini-3.5-flash-lite'),
  },
]
