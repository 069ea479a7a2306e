import type { Usage } from '../../canonical/types'
import { toTokenUsage } from '../../canonical/usage'
import type { TokenUsage } from '../../usage/usage-meter'
import { finiteNumber, isJsonObject } from '../../internal/json'

/**
 * OpenAI usage ↔ canonical usage. `prompt_tokens` includes cached tokens and `completion_tokens`
 * includes reasoning tokens.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
export function openAIUsageToCanonical(usage: unknown): Usage {
  if (!isJsonObject(usage)) return { input: {}, output: {} }
  const prompt = finiteNumber(usage['prompt_tokens'])
  const promptDetails = isJsonObject(usage['prompt_tokens_details'])
    ? usage['prompt_tokens_details']
    : {}
  const completionDetails = isJsonObject(usage['completion_tokens_details'])
    ? usage['completion_tokens_details']
    : {}
  const cacheRead =
    finiteNumber(promptDetails['cached_tokens']) ?? finiteNumber(usage['prompt_cache_hit_tokens'])
  const cacheWrite = finiteNumber(promptDetails['cache_write_tokens'])
  return {
    input: {
      total: prompt,
      uncached:
        prompt === undefined
          ? undefined
          : Math.max(prompt - (cacheRead ?? 0) - (cacheWrite ?? 0), 0),
      cacheRead,
      cacheWrite,
    },
    output: {
      total: finiteNumber(usage['completion_tokens']),
      reasoning: finiteNumber(completionDetails['reasoning_tokens']),
    },
  }
}

/** The OpenAI `usage` object for canonical usage; totals always add up. */
export function canonicalUsageToOpenAI(usage: Usage) {
  const prompt = usage.input.total ?? 0
  const completion = usage.output.total ?? 0
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage.input.cacheRead ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.output.reasoning ?? 0 },
  }
}

/**
 * What the usage meter records for an OpenAI `usage` object: `undefined` when it holds no token
 * counts. `prompt_tokens` already includes cached tokens (DeepSeek's `prompt_cache_hit_tokens`
 * count as cached too).
 */
export function readOpenAIUsage(usage: unknown): TokenUsage | undefined {
  return toTokenUsage(openAIUsageToCanonical(usage))
}
