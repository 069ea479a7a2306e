import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { isJsonObject } from '../internal/json'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/**
 * `GET /v1/responses/{id}`: a response the gateway stored (`store: true`, on a translated path),
 * for the key that created it; anything else is 404, as OpenAI answers an unknown id. Reasoning
 * items carry `encrypted_content` only when asked for with `include=reasoning.encrypted_content`
 * (also `include[]=…`), as the API's own GET does.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/get
 */
export async function handleGetResponse(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const id = scope.pathId ?? ''
  const stored = await runtime.responseStore.get(scope.key.id, id)
  if (stored === undefined) {
    throw new GatewayError('not_found', `Response with id '${id}' not found.`)
  }
  const include = [
    ...scope.url.searchParams.getAll('include'),
    ...scope.url.searchParams.getAll('include[]'),
  ]
  const withBlobs = include.includes('reasoning.encrypted_content')
  const output = stored.response.output.map((item) => {
    if (withBlobs || !isJsonObject(item) || item['type'] !== 'reasoning') return item
    const { encrypted_content: _dropped, ...rest } = item
    return rest
  })
  return jsonAnswer({ ...stored.response, output })
}

/** `GET /v1/responses/{id}`, also without `/v1`. */
export const getResponseRoutes: readonly RouteDefinition[] = [
  {
    name: 'responses.get',
    method: 'GET',
    paths: ['/v1/responses/{id}', '/responses/{id}'],
    errors: 'responses',
    handler: handleGetResponse,
  },
]
