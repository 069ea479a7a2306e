import { describe, expect, it } from 'vitest'
import { goDuration, rateLimitHeaders } from '../../src/usage/rate-limit-headers'
import type { LimitState } from '../../src/usage/usage-meter'

describe('rate-limit headers', () => {
  it('writes resets as Go durations, as OpenAI does', () => {
    expect(
      [0, 1, 150, 999, 1000, 1500, 12_000, 59_999, 60_000, 360_000, 3_723_400].map(goDuration),
    ).toEqual([
      '0s',
      '1ms',
      '150ms',
      '999ms',
      '1s',
      '1.5s',
      '12s',
      '59.999s',
      '1m0s',
      '6m0s',
      '1h2m3.4s',
    ])
  })

  const limits: LimitState[] = [
    { name: 'requestsPerMinute', limit: 60, remaining: 59, resetInMs: 1000 },
    { name: 'inputTokensPerMinute', limit: 100_000, remaining: 99_000, resetInMs: 600 },
    { name: 'outputTokensPerMinute', limit: 8000, remaining: 4000, resetInMs: 30_000 },
    { name: 'concurrency', limit: 4, remaining: 3 },
    { name: 'tokensPerDay', limit: 1e6, remaining: 5, resetInMs: 3_600_000, used: 0, reserved: 0 },
  ]
  const now = Date.UTC(2026, 10, 23, 10, 0, 0, 250)

  it('reports requests and the tighter token window in OpenAI style', () => {
    expect(Object.fromEntries(rateLimitHeaders(limits, 'openai', now))).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-limit-tokens': '8000',
      'x-ratelimit-remaining-tokens': '4000',
      'x-ratelimit-reset-tokens': '30s',
    })
  })

  it('reports each window and the tighter one in Anthropic style, resets in RFC 3339 rounded up', () => {
    expect(Object.fromEntries(rateLimitHeaders(limits, 'anthropic', now))).toEqual({
      'anthropic-ratelimit-requests-limit': '60',
      'anthropic-ratelimit-requests-remaining': '59',
      'anthropic-ratelimit-requests-reset': '2026-11-23T10:00:02Z',
      'anthropic-ratelimit-input-tokens-limit': '100000',
      'anthropic-ratelimit-input-tokens-remaining': '99000',
      'anthropic-ratelimit-input-tokens-reset': '2026-11-23T10:00:01Z',
      'anthropic-ratelimit-output-tokens-limit': '8000',
      'anthropic-ratelimit-output-tokens-remaining': '4000',
      'anthropic-ratelimit-output-tokens-reset': '2026-11-23T10:00:31Z',
      'anthropic-ratelimit-tokens-limit': '8000',
      'anthropic-ratelimit-tokens-remaining': '4000',
      'anthropic-ratelimit-tokens-reset': '2026-11-23T10:00:31Z',
    })
  })

  it('adds nothing for a key without windows', () => {
    expect(rateLimitHeaders(limits.slice(3), 'openai', now)).toEqual([])
    expect(rateLimitHeaders([], 'anthropic', now)).toEqual([])
  })
})
