import type { Usage } from '../../canonical/types'
import { finiteNumber, isJsonObject } from '../../internal/json'

/**
 * Converse `usage` → canonical usage. As on Anthropic's API, `inputTokens` is the uncached input:
 * cache reads (`cacheReadInputTokens`) and writes (`cacheWriteInputTokens`) come on top, so the
 * total input is their sum. `cacheDetails` splits the writes by lifetime; the hour's part is kept
 * as `cacheWrite1h` (it is priced higher). `totalTokens` is not read: the canonical totals are
 * computed from the parts.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */
export function converseUsageToCanonical(usage: unknown): Usage {
  if (!isJsonObject(usage)) return { input: {}, output: {} }
  const uncached = finiteNumber(usage['inputTokens'])
  const cacheRead = finiteNumber(usage['cacheReadInputTokens'])
  const cacheWrite = finiteNumber(usage['cacheWriteInputTokens'])
  const oneHour = hourWrites(usage['cacheDetails'])
  const anyInput = uncached !== undefined || cacheRead !== undefined || cacheWrite !== undefined
  return {
    input: {
      total: anyInput ? (uncached ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0) : undefined,
      uncached,
      cacheRead,
      cacheWrite,
      ...(oneHour === undefined ? {} : { cacheWrite1h: oneHour }),
    },
    output: { total: finiteNumber(usage['outputTokens']) },
  }
}

/** The cache writes kept an hour, from `cacheDetails: [{ttl: "1h" | "5m", inputTokens}]`. */
function hourWrites(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined
  let total: number | undefined
  for (const detail of details) {
    if (!isJsonObject(detail) || detail['ttl'] !== '1h') continue
    total = (total ?? 0) + (finiteNumber(detail['inputTokens']) ?? 0)
  }
  return total
}
