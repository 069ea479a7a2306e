import { GatewayError } from '../errors'
import type { Unavailable } from './upstream-selector'

const reasons: Record<Unavailable['reason'], string> = {
  'circuits-open': 'every upstream of this model is resting after failures',
  concurrency: 'every upstream of this model is at its concurrency limit',
  'no-keys': 'every upstream key of this model is out of rotation',
  exhausted: 'every upstream of this model has been tried',
}

/**
 * The answer when no upstream may be tried (naming the model asked for and what rests): `overloaded` with `retry-after` (and
 * `retry-after-ms`), which the renderers make a 503 in OpenAI, Gemini and Responses shapes and a
 * 529 `overloaded_error` on Anthropic routes, the status each protocol's clients retry on.
 */
export function nothingAvailable(unavailable: Unavailable, model?: string): GatewayError {
  const waitMs = Math.max(0, Math.ceil(unavailable.retryAfterMs ?? 1000))
  const forModel = model === undefined ? '' : ` for model "${model}"`
  const detail = unavailable.detail === undefined ? '' : ` (${unavailable.detail})`
  return new GatewayError(
    'overloaded',
    `No upstream is available${forModel}: ${reasons[unavailable.reason]}${detail}. Retry shortly.`,
    {
      headers: {
        'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
        'retry-after-ms': String(waitMs),
      },
    },
  )
}
