import type { Usage } from '../../canonical/types'
import { toTokenUsage } from '../../canonical/usage'
import { finiteNumber, isJsonObject } from '../../internal/json'
import type { TokenUsage } from '../../usage/usage-meter'

/** A Response object's `usage`, always with all five numbers and both detail objects. */
export type ResponsesUsage = {
  input_tokens: number
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number }
  output_tokens: number
  output_tokens_details: { reasoning_tokens: number }
  total_tokens: number
}

/**
 * Responses `usage` → canonical usage. `input_tokens` includes cached (and cache-written) tokens
 * and `output_tokens` includes reasoning tokens.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function responsesUsageToCanonical(usage: unknown): Usage {
  if (!isJsonObject(usage)) return { input: {}, output: {} }
  const input = finiteNumber(usage['input_tokens'])
  const inputDetails = isJsonObject(usage['input_tokens_details'])
    ? usage['input_tokens_details']
    : {}
  const outputDetails = isJsonObject(usage['output_tokens_details'])
    ? usage['output_tokens_details']
    : {}
  const cacheRead = finiteNumber(inputDetails['cached_tokens'])
  const cacheWrite = finiteNumber(inputDetails['cache_write_tokens'])
  return {
    input: {
      total: input,
      uncached:
        input === undefined ? undefined : Math.max(input - (cacheRead ?? 0) - (cacheWrite ?? 0), 0),
      cacheRead,
      cacheWrite,
    },
    output: {
      total: finiteNumber(usage['output_tokens']),
      reasoning: finiteNumber(outputDetails['reasoning_tokens']),
    },
  }
}

/**
 * Canonical usage → a Response object's `usage`: all five numbers, both detail objects, and
 * `total_tokens = input_tokens + output_tokens`, as Codex and the AI SDK require.
 * Cache writes (Anthropic's) are counted in `input_tokens` and named in `cache_write_tokens`.
 */
export function canonicalUsageToResponses(usage: Usage): ResponsesUsage {
  const input = usage.input.total ?? 0
  const output = usage.output.total ?? 0
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: usage.input.cacheRead ?? 0,
      ...(usage.input.cacheWrite === undefined
        ? {}
        : { cache_write_tokens: usage.input.cacheWrite }),
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.output.reasoning ?? 0 },
    total_tokens: input + output,
  }
}

/** What the usage meter records for a Responses `usage` object. */
export function readResponsesUsage(usage: unknown): TokenUsage | undefined {
  return toTokenUsage(responsesUsageToCanonical(usage))
}
