import type { TokenUsage } from './token-usage'
import type { Usage } from './types'

/** Usage with nothing reported. */
export function emptyUsage(): Usage {
  return { input: {}, output: {} }
}

/** Overlays a later snapshot on an earlier one: reported fields win, unreported ones stay. */
export function mergeUsage(earlier: Usage, later: Usage): Usage {
  return {
    input: { ...earlier.input, ...definedOnly(later.input) },
    output: { ...earlier.output, ...definedOnly(later.output) },
  }
}

/** What the usage meter records: `undefined` when the upstream reported no token counts. */
export function toTokenUsage(usage: Usage): TokenUsage | undefined {
  const input = usage.input.total
  const output = usage.output.total
  if (input === undefined && output === undefined) return undefined
  const written = usage.input.cacheWrite ?? 0
  const writtenHour = Math.min(usage.input.cacheWrite1h ?? 0, written)
  return {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    cachedInputTokens: usage.input.cacheRead ?? 0,
    // The record keeps the two lifetimes apart: the canonical `cacheWrite1h` is part of `cacheWrite`.
    cacheWriteInputTokens: Math.max(0, written - writtenHour),
    cacheWrite1hInputTokens: writtenHour,
    reasoningTokens: usage.output.reasoning ?? 0,
    totalTokens: (input ?? 0) + (output ?? 0),
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== undefined),
  ) as Partial<T>
}
