import type { TokenUsage } from './token-usage'
import type { Usage } from './types'

/** Usage with nothing reported. */
export function emptyUsage(): Usage {
  return { input: {}, output: {} }
}

/** Overlays a later snapshot on an earlier one: reported fields win, unreported ones stay. */
export function mergeUsage(earlier: Usage, later: Usage): Usage {
  // Field by field, each present (maybe `undefined`): one object shape for every merge, where
  // spreads and a filtered copy cost V8's generic paths on every usage event of a stream.
  const before = earlier.input
  const after = later.input
  return {
    input: {
      total: after.total ?? before.total,
      uncached: after.uncached ?? before.uncached,
      cacheRead: after.cacheRead ?? before.cacheRead,
      cacheWrite: after.cacheWrite ?? before.cacheWrite,
      cacheWrite1h: after.cacheWrite1h ?? before.cacheWrite1h,
    },
    output: {
      total: later.output.total ?? earlier.output.total,
      reasoning: later.output.reasoning ?? earlier.output.reasoning,
    },
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
