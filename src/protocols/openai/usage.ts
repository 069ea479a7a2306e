import { isJsonObject } from '../../internal/json'
import type { TokenUsage } from '../../usage/usage-meter'

/**
 * Reads an OpenAI `usage` object. `prompt_tokens` includes cached tokens; cached tokens come from
 * `prompt_tokens_details.cached_tokens`, or DeepSeek's `prompt_cache_hit_tokens` (checklist USE-05).
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 * @returns `undefined` when there is no usage object with token counts
 */
export function readOpenAIUsage(usage: unknown): TokenUsage | undefined {
  if (!isJsonObject(usage)) return undefined
  const input = numberOr(usage['prompt_tokens'])
  const output = numberOr(usage['completion_tokens'])
  if (input === undefined && output === undefined) return undefined
  const details = usage['prompt_tokens_details']
  const cached =
    (isJsonObject(details) ? numberOr(details['cached_tokens']) : undefined) ??
    numberOr(usage['prompt_cache_hit_tokens']) ??
    0
  const inputTokens = input ?? 0
  const outputTokens = output ?? 0
  return {
    inputTokens,
    outputTokens,
    cachedInputTokens: cached,
    totalTokens: numberOr(usage['total_tokens']) ?? inputTokens + outputTokens,
  }
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}
