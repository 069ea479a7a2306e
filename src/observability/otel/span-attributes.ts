import type { TokenUsage } from '../../usage/usage-meter'

/**
 * The GenAI usage attributes of reported usage (v1.41.0 names): input includes cached input, as
 * the conventions and `TokenUsage` both count it; cache reads and writes and reasoning are subsets.
 */
export function usageAttributes(usage: TokenUsage): Record<string, number> {
  const attributes: Record<string, number> = {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
  }
  if (usage.cachedInputTokens > 0) {
    attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cachedInputTokens
  }
  const written = usage.cacheWriteInputTokens + usage.cacheWrite1hInputTokens
  if (written > 0) attributes['gen_ai.usage.cache_creation.input_tokens'] = written
  if (usage.reasoningTokens > 0) {
    attributes['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens
  }
  return attributes
}
