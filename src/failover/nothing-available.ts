import { GatewayError } from '../errors'
import type { Unavailable } from './upstream-selector'

const reasons: Record<Unavailable['reason'], string> = {
  'circuits-open': 'every upstream of this model is failing and resting',
  concurrency: 'every upstream of this model is at its concurrency limit',
  'no-keys': 'every upstream key of this model is out of rotation',
  exhausted: 'every upstream of this model has been tried',
}

/**
 * The answer when no upstream may be tried: `overloaded` with `retry-after` (and
 * `retry-after-ms`), which the renderers make a 503 in OpenAI, Gemini and Responses shapes and a
 * 529 `overloaded_error` on Anthropic routes, the status each protocol's clients retry on.
 */
export function nothingAvailable(unavailable: Unavailable): GatewayError {
  const waitMs = Math.max(0, Math.ceil(unavailable.retryAfterMs ?? 1000))
  return new GatewayError(
    'overloaded',
    `No upstream is available: ${reasons[unavailable.reason]}. Retry shortly.`,
    {
      headers: {
        'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
        'retry-after-ms': String(waitMs),
      },
    },
  )
}
