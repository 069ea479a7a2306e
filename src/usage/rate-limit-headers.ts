import type { WindowLimitName } from './key-limits'
import type { LimitState } from './usage-meter'

/** Which vendor's rate-limit headers a route answers with. */
export type RateLimitHeaderStyle = 'openai' | 'anthropic'

/**
 * The rate-limit headers of a successful answer, built from the key's per-minute windows after the
 * request was counted. Nothing is added for a key without windows.
 *
 * - OpenAI style (chat completions and Gemini routes): `x-ratelimit-{limit,remaining,reset}-requests`
 *   and `-tokens`, resets as Go durations (`6m0s`, `1.5s`, `20ms`), as OpenAI sends them.
 * - Anthropic style (messages routes): `anthropic-ratelimit-{requests,input-tokens,output-tokens,
 *   tokens}-{limit,remaining,reset}`, resets as RFC 3339 instants (whole seconds, rounded up).
 *
 * The `tokens` family is the more constraining of the input and output windows (the fewer tokens
 * left), as Anthropic defines its own `tokens` headers.
 *
 * @see https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
 * @see https://docs.anthropic.com/en/api/rate-limits#response-headers
 */
export function rateLimitHeaders(
  limits: readonly LimitState[],
  style: RateLimitHeaderStyle,
  now: number,
): [string, string][] {
  const byName = (name: WindowLimitName) => limits.find((state) => state.name === name)
  const requests = byName('requestsPerMinute')
  const input = byName('inputTokensPerMinute')
  const output = byName('outputTokensPerMinute')
  const tokens =
    input === undefined
      ? output
      : output === undefined || input.remaining <= output.remaining
        ? input
        : output
  const headers: [string, string][] = []
  if (style === 'openai') {
    const add = (family: string, state: LimitState | undefined) => {
      if (state === undefined) return
      headers.push(
        [`x-ratelimit-limit-${family}`, String(state.limit)],
        [`x-ratelimit-remaining-${family}`, String(state.remaining)],
        [`x-ratelimit-reset-${family}`, goDuration(state.resetInMs ?? 0)],
      )
    }
    add('requests', requests)
    add('tokens', tokens)
    return headers
  }
  const add = (family: string, state: LimitState | undefined) => {
    if (state === undefined) return
    headers.push(
      [`anthropic-ratelimit-${family}-limit`, String(state.limit)],
      [`anthropic-ratelimit-${family}-remaining`, String(state.remaining)],
      [`anthropic-ratelimit-${family}-reset`, rfc3339Seconds(now + (state.resetInMs ?? 0))],
    )
  }
  add('requests', requests)
  add('input-tokens', input)
  add('output-tokens', output)
  add('tokens', tokens)
  return headers
}

/** A duration as Go's `time.Duration.String` writes it, to the millisecond: `6m0s`, `1.5s`, `20ms`. */
export function goDuration(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms))
  if (whole === 0) return '0s'
  if (whole < 1000) return `${whole}ms`
  const hours = Math.floor(whole / 3_600_000)
  const minutes = Math.floor((whole % 3_600_000) / 60_000)
  const millis = whole % 60_000
  const seconds =
    millis % 1000 === 0 ? String(millis / 1000) : (millis / 1000).toFixed(3).replace(/0+$/, '')
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`
  if (minutes > 0) return `${minutes}m${seconds}s`
  return `${seconds}s`
}

/** An instant in RFC 3339, UTC, rounded up to the whole second: `2026-11-23T10:00:05Z`. */
function rfc3339Seconds(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}
