import type { Usage } from '../../canonical/types'
import { finiteNumber, isJsonObject } from '../../internal/json'

/**
 * Anthropic usage ↔ canonical usage. `input_tokens` excludes cache reads and writes, so the total
 * input is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`.
 * `cache_creation` splits the writes by lifetime: an hour's write (`ephemeral_1h_input_tokens`)
 * costs 2× input, five minutes' 1.25×, so the hour's part is kept as `cacheWrite1h`. Thinking
 * tokens are part of `output_tokens`; Anthropic names them in `output_tokens_details`.
 *
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#1-hour-cache-duration
 */
export function anthropicUsageToCanonical(usage: unknown): Usage {
  if (!isJsonObject(usage)) return { input: {}, output: {} }
  const uncached = finiteNumber(usage['input_tokens'])
  const cacheRead = finiteNumber(usage['cache_read_input_tokens'])
  const split = isJsonObject(usage['cache_creation']) ? usage['cache_creation'] : undefined
  const fiveMinutes =
    split === undefined ? undefined : finiteNumber(split['ephemeral_5m_input_tokens'])
  const oneHour = split === undefined ? undefined : finiteNumber(split['ephemeral_1h_input_tokens'])
  const cacheWrite =
    finiteNumber(usage['cache_creation_input_tokens']) ??
    (fiveMinutes === undefined && oneHour === undefined
      ? undefined
      : (fiveMinutes ?? 0) + (oneHour ?? 0))
  const details = isJsonObject(usage['output_tokens_details'])
    ? usage['output_tokens_details']
    : undefined
  const reasoning = details === undefined ? undefined : finiteNumber(details['thinking_tokens'])
  const anyInput = uncached !== undefined || cacheRead !== undefined || cacheWrite !== undefined
  return {
    input: {
      total: anyInput ? (uncached ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0) : undefined,
      uncached,
      cacheRead,
      cacheWrite,
      ...(oneHour === undefined ? {} : { cacheWrite1h: oneHour }),
    },
    output: {
      total: finiteNumber(usage['output_tokens']),
      ...(reasoning === undefined ? {} : { reasoning }),
    },
  }
}

/** The Anthropic `usage` object for canonical usage. Counts are never negative (USE-01). */
export function canonicalUsageToAnthropic(usage: Usage) {
  const cacheRead = usage.input.cacheRead ?? 0
  const cacheWrite = usage.input.cacheWrite ?? 0
  const uncached =
    usage.input.uncached ?? Math.max((usage.input.total ?? 0) - cacheRead - cacheWrite, 0)
  return {
    input_tokens: uncached,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    // The split by lifetime, when the upstream said which writes were the hour's.
    ...(usage.input.cacheWrite1h === undefined
      ? {}
      : {
          cache_creation: {
            ephemeral_5m_input_tokens: Math.max(0, cacheWrite - usage.input.cacheWrite1h),
            ephemeral_1h_input_tokens: Math.min(usage.input.cacheWrite1h, cacheWrite),
          },
        }),
    output_tokens: usage.output.total ?? 0,
  }
}
