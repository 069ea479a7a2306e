/**
 * Token counts exactly as the upstream reported them, each category apart, since each has its
 * own price. `inputTokens` includes cached input, read and written, as OpenAI's `prompt_tokens`
 * does (Anthropic's `input_tokens` does not: the decoder adds them); `outputTokens` includes
 * reasoning (Gemini's `thoughtsTokenCount` is added to its candidates). `totalTokens` is what
 * counts against a token quota. The uncached input is `inputTokens - cachedInputTokens -
 * cacheWriteInputTokens - cacheWrite1hInputTokens`.
 */
export type TokenUsage = {
  inputTokens: number
  outputTokens: number
  /** Input read from the prompt cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`). */
  cachedInputTokens: number
  /**
   * Input written to the prompt cache for 5 minutes (Anthropic's default lifetime), or for a
   * lifetime the upstream did not say (OpenAI `cache_write_tokens`).
   */
  cacheWriteInputTokens: number
  /** Input written to the prompt cache for an hour (Anthropic `ephemeral_1h_input_tokens`). */
  cacheWrite1hInputTokens: number
  /** Output spent reasoning, part of `outputTokens` (OpenAI `reasoning_tokens`, Gemini `thoughtsTokenCount`). */
  reasoningTokens: number
  totalTokens: number
}

/** The tokens a request is expected to use, held until it settles. */
export type TokenEstimate = {
  /** Input tokens (a conservative count of the prompt). */
  inputTokens: number
  /** Output tokens (the request's output limit, or the gateway's default allowance). */
  outputTokens: number
  /**
   * What money budgets hold, in nano-USD: the input estimate at the input price plus the output
   * allowance at the output price (the most any of the request's routes may cost). Absent or 0 for
   * an unpriced model.
   */
  costNano?: number | undefined
}

/** How a request ended. */
export type UsageOutcome = 'ok' | 'error' | 'aborted'
