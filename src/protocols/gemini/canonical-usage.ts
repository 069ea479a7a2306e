import type { Usage } from '../../canonical/types'
import { finiteNumber, isJsonObject } from '../../internal/json'

/**
 * Gemini `usageMetadata` → canonical usage. `promptTokenCount` already includes
 * `cachedContentTokenCount`, while `candidatesTokenCount` excludes `thoughtsTokenCount`, so the
 * canonical output total adds the thoughts back. Tokens of tool-use prompts
 * (`toolUsePromptTokenCount`) are input the model read, so they join the input total.
 *
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function geminiUsageToCanonical(usageMetadata: unknown): Usage {
  if (!isJsonObject(usageMetadata)) return { input: {}, output: {} }
  const prompt = finiteNumber(usageMetadata['promptTokenCount'])
  const toolUsePrompt = finiteNumber(usageMetadata['toolUsePromptTokenCount'])
  const cacheRead = finiteNumber(usageMetadata['cachedContentTokenCount'])
  const candidates = finiteNumber(usageMetadata['candidatesTokenCount'])
  const thoughts = finiteNumber(usageMetadata['thoughtsTokenCount'])
  const inputTotal =
    prompt === undefined && toolUsePrompt === undefined
      ? undefined
      : (prompt ?? 0) + (toolUsePrompt ?? 0)
  return {
    input: {
      total: inputTotal,
      uncached: inputTotal === undefined ? undefined : Math.max(inputTotal - (cacheRead ?? 0), 0),
      cacheRead,
    },
    output: {
      total:
        candidates === undefined && thoughts === undefined
          ? undefined
          : (candidates ?? 0) + (thoughts ?? 0),
      reasoning: thoughts,
    },
  }
}

/** Gemini's `usageMetadata` as the canonical usage describes it. */
export type GeminiUsageMetadata = {
  promptTokenCount: number
  candidatesTokenCount: number
  thoughtsTokenCount?: number
  cachedContentTokenCount?: number
  totalTokenCount: number
}

/**
 * The Gemini `usageMetadata` for canonical usage. Optional counts appear only when positive, as
 * Google omits them; `totalTokenCount` always equals prompt + candidates + thoughts (USE-01).
 *
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function canonicalUsageToGemini(usage: Usage): GeminiUsageMetadata {
  const prompt = usage.input.total ?? 0
  const thoughts = Math.min(usage.output.reasoning ?? 0, usage.output.total ?? Infinity)
  const candidates = Math.max((usage.output.total ?? 0) - thoughts, 0)
  const cacheRead = usage.input.cacheRead ?? 0
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    ...(cacheRead > 0 ? { cachedContentTokenCount: cacheRead } : {}),
    totalTokenCount: prompt + candidates + thoughts,
  }
}
