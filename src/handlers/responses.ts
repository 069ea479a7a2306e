import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import {
  parseClientJson,
  readModelField,
  scanClientJson,
  type ClientJson,
} from '../http/client-json'
import { headerText } from '../http/header-text'
import { validateBody } from '../http/validate-body'
import { readResponsesUsage } from '../protocols/responses/canonical-usage'
import { responsesClientCodec } from '../protocols/responses/client-codec'
import { responsesPassthroughBody } from '../protocols/responses/passthrough-body'
import { responsesPassthroughStream } from '../protocols/responses/passthrough-stream'
import { decodeResponsesRequest } from '../protocols/responses/request-decode'
import {
  responsesArrayLimits,
  responsesRequestSchema,
  type ResponsesInputItem,
  type ResponsesRequest,
} from '../protocols/responses/request-schema'
import type { ResponsesObject } from '../protocols/responses/response-object'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { passthroughJsonAnswer, resolveCall, routeCall } from '../relay/route-call'
import type { CommonPlan } from '../relay/call-plan'
import { translatedPlan } from '../relay/translated-plan'
import { resolveResponsesInput } from '../response-store/resolve-input'
import type { StoredJson } from '../response-store/response-store'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/**
 * The response header naming the built-in tools (web search, file search…) a translated upstream
 * could not serve and the request went without.
 */
export const droppedToolsHeader = 'x-gateway-dropped-tools'

/**
 * `POST /v1/responses`: OpenAI's Responses API. To an OpenAI upstream marked `responses: true`
 * this is passthrough (only `model` rewritten, usage tapped from the terminal event). To any other
 * upstream the request is translated through the canonical form, and the answer — JSON or the
 * Responses event stream — written back in the Responses API's own shape.
 *
 * With `store` (the API's default) a translated answer is kept in the response store, so that the
 * client's next turn may name it by `previous_response_id` or refer to its items; a stream's last
 * event goes out only once it is stored.
 */
export async function handleResponses(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const scanned = scanClientJson(await scope.request.text(runtime.maxBodyBytes))
  const route = await resolveCall(runtime, scope, readModelField(scanned))
  const json = parseClientJson(scanned)
  const body = validateBody(json.value, responsesRequestSchema, responsesArrayLimits)
  const routed = routeCall(runtime, scope, route, {
    model: body.model,
    stream: body.stream === true,
    text: json.text,
    maxOutputTokens: body.max_output_tokens ?? undefined,
    protocol: 'responses',
    body,
  })
  const keyId = scope.key.id
  // Set when the call is translated: the store write a JSON answer waits for, and the built-in
  // tools the upstream could not serve.
  let pending: Promise<void> | undefined
  let droppedTools: readonly string[] = []
  const response = await relayCall(runtime, scope, routed, async (common) => {
    if (common.provider.protocol === 'responses') {
      const resolved = await resolveResponsesInput(body, runtime.responseStore, keyId, false)
      return passthroughPlan(
        runtime,
        scope,
        json,
        body,
        common,
        resolved.expanded ? resolved.items : undefined,
      )
    }
    refuseUnservable(body)
    const resolved = await resolveResponsesInput(body, runtime.responseStore, keyId, true)
    const decoded = decodeResponsesRequest(body, resolved.items, resolved.storedReasoning)
    droppedTools = decoded.droppedTools
    const store = (response: ResponsesObject) => {
      if (body.store === false) return
      // A store that fails costs the client its stored state, never its answer.
      pending = (async () =>
        runtime.responseStore.put({
          keyId,
          response: response as unknown as StoredJson & { id: string; output: StoredJson[] },
          input: resolved.items,
        }))().catch((error: unknown) =>
        console.error('[model-gateway] the response store failed:', error),
      )
    }
    const plan = translatedPlan(
      runtime,
      scope,
      decoded.request,
      responsesClientCodec(decoded.context, store),
      common,
    )
    const translator = plan.translator
    plan.translator = () => ({ ...translator(), settle: async () => void (await pending) })
    return plan
  })
  // A JSON answer is stored by now; wait for the store so the next turn can refer to it.
  if (pending !== undefined && typeof response.body === 'string') await pending
  if (droppedTools.length > 0)
    response.headers.set(droppedToolsHeader, headerText(droppedTools.join(', ')))
  return response
}

function passthroughPlan(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  json: ClientJson,
  body: ResponsesRequest,
  common: CommonPlan,
  resolved: readonly ResponsesInputItem[] | undefined,
): CallPlan {
  return {
    ...common,
    operation: 'responses',
    body: responsesPassthroughBody(json, body, common.route.model.upstreamModel, resolved),
    headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
    // The upstream's bytes go back unchanged; the usage is read from its checked body.
    answerJson: (text, json) =>
      passthroughJsonAnswer(text, json, 'usage', readResponsesUsage, {
        modelMember: 'model',
        callName: common.model,
      }),
    translator: () => responsesPassthroughStream(common.model),
  }
}

/** Features only an upstream that keeps state could serve: refused by name on translated paths. */
function refuseUnservable(body: ResponsesRequest): void {
  if (body.background === true) {
    throw new GatewayError(
      'invalid_request',
      'Background responses are not supported for this model: send the request without `background`.',
      { param: 'background' },
    )
  }
  if (body['conversation'] !== undefined && body['conversation'] !== null) {
    throw new GatewayError(
      'invalid_request',
      'Conversations are not supported for this model: send the conversation as input items, or use `previous_response_id`.',
      { param: 'conversation' },
    )
  }
}

/** `POST /v1/responses`, also without `/v1`. */
export const responsesRoutes: readonly RouteDefinition[] = [
  {
    name: 'responses',
    method: 'POST',
    paths: ['/v1/responses', '/responses'],
    errors: 'responses',
    handler: handleResponses,
  },
]
