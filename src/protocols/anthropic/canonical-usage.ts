import type { Usage } from '../../canonical/types'
import { finiteNumber, isJsonObject } from '../../internal/json'

/**
 * Anthropic usage ↔ canonical usage. `input_tokens` excludes cache reads and writes, so the total
 * input is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens` (checklist §3.3).
 *
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 */
export function anthropicUsageToCanonical(usage: unknown): Usage {
  if (!isJsonObject(usage)) return { input: {}, output: {} }
  const uncached = finiteNumber(usage['input_tokens'])
  const cacheRead = finiteNumber(usage['cache_read_input_tokens'])
  const cacheWrite = finiteNumber(usage['cache_creation_input_tokens'])
  const anyInput = uncached !== undefined || cacheRead !== undefined || cacheWrite !== undefined
  return {
    input: {
      total: anyInput ? (uncached ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0) : undefined,
      uncached,
      cacheRead,
      cacheWrite,
    },
    output: { total: finiteNumber(usage['output_tokens']) },
  }
}

/** The Anthropic `usage` object for canonical usage. Counts are never negative (checklist USE-01). */
export function canonicalUsageToAnthropic(usage: Usage) {
  const cacheRead = usage.input.cacheRead ?? 0
  const cacheWrite = usage.input.cacheWrite ?? 0
  const uncached =
    usage.input.uncached ?? Math.max((usage.input.total ?? 0) - cacheRead - cacheWrite, 0)
  return {
    input_tokens: uncached,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: usage.output.total ?? 0,
  }
}
