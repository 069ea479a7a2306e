import type { GatewayError } from '../errors'
import { renderAnthropicError } from './anthropic/errors'
import { renderGeminiError } from './gemini/errors'
import { renderOpenAIError } from './openai/errors'
import { renderResponsesError } from './responses/errors'

/** The error shapes a client route answers in: one per client protocol. */
export type ErrorShape = 'openai' | 'anthropic' | 'gemini' | 'responses'

/**
 * Each client protocol's error renderer. Core code never builds vendor-shaped JSON: it picks the
 * renderer of the route the caller called (architecture §3, rule 12), so a new client protocol
 * registers its renderer here and nowhere else.
 */
const renderers: Record<ErrorShape, (error: GatewayError, requestId: string) => Response> = {
  openai: (error) => renderOpenAIError(error),
  anthropic: renderAnthropicError,
  gemini: (error) => renderGeminiError(error),
  responses: (error) => renderResponsesError(error),
}

/** Renders a gateway error in the caller's protocol, with the headers the error carries. */
export function renderError(shape: ErrorShape, error: GatewayError, requestId: string): Response {
  const response = renderers[shape](error, requestId)
  for (const [name, value] of Object.entries(error.headers ?? {})) {
    response.headers.set(name, value)
  }
  return response
}
