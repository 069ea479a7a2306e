import type { GatewayError } from '../errors'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { ErrorRenderer } from '../http/route-table'
import { anthropicErrorBody } from './anthropic/errors'
import { geminiErrorBody } from './gemini/errors'
import { openAIErrorObject, openAIStatus } from './openai/errors'
import { responsesErrorObject, responsesErrorStatus } from './responses/errors'

import type { ErrorShape } from './protocol-name'

export type { ErrorShape } from './protocol-name'

/**
 * Each client protocol's error answer. Core code never builds vendor-shaped JSON: it picks the
 * renderer of the route the caller called (docs/architecture.md › A request's path, step 1), so a
 * new client protocol registers its renderer here and nowhere else; a route whose clients speak
 * no vendor protocol names its own (`ErrorRenderer`).
 */
const renderers: Record<ErrorShape, (error: GatewayError, requestId: string) => GatewayAnswer> = {
  openai: (error) => jsonAnswer({ error: openAIErrorObject(error) }, openAIStatus(error)),
  anthropic: (error, requestId) => jsonAnswer(anthropicErrorBody(error, requestId), error.status),
  gemini: (error) => {
    const body = geminiErrorBody(error)
    return jsonAnswer(body, body.error.code)
  },
  responses: (error) =>
    jsonAnswer({ error: responsesErrorObject(error) }, responsesErrorStatus(error)),
}

/**
 * Renders a gateway error in the caller's protocol (or with the route's own renderer), with the
 * headers the error carries.
 */
export function renderError(
  shape: ErrorShape | ErrorRenderer,
  error: GatewayError,
  requestId: string,
): GatewayAnswer {
  const answer =
    typeof shape === 'function' ? shape(error, requestId) : renderers[shape](error, requestId)
  for (const [name, value] of Object.entries(error.headers ?? {})) {
    answer.headers.set(name.toLowerCase(), value)
  }
  return answer
}
