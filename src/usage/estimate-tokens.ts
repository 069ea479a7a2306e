/**
 * A rough token count (about four characters a token, as OpenAI's rule of thumb has it). Used by
 * the mock upstream for plausible usage, and for quota reservations before the real count is
 * known; never for billing.
 */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4))
}
