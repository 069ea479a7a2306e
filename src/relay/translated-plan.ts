import type { ChatRequest } from '../canonical/types'
import { toTokenUsage } from '../canonical/usage'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { modelEntryProfile } from '../models/match-profile'
import type { ModelTarget } from '../models/model-target'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { upstreamCodecs, type ClientCodec } from './protocol-codecs'
import type { CallPlan, CommonPlan } from './call-plan'
import { translatedStream } from './translated-stream'

/**
 * A plan for a cross-protocol call: the canonical request is encoded for the upstream, and the
 * answer (JSON or stream) decoded from the upstream's protocol and encoded in the client's.
 * Usage comes from the canonical usage, which is exactly what the upstream reported. The request
 * is fitted to the upstream model's profile; what that changed goes on the request's event.
 *
 * `client` is the client protocol's codec: one of `clientCodecs`, or one a handler built for this
 * request when the answer depends on more than the canonical request (the Responses API echoes
 * the request and restores custom tools).
 */
export function translatedPlan(
  runtime: GatewayRuntime,
  scope: RequestScope,
  request: ChatRequest,
  client: ClientCodec,
  common: CommonPlan,
): CallPlan {
  const upstream = upstreamCodecs[common.provider.protocol]
  const meta = {
    requestId: scope.requestId,
    model: common.model,
    created: Math.floor(runtime.now() / 1000),
    includeUsage: request.streamUsage === true,
  }
  const generateId = () => `call_${runtime.generateId().replace(/[^a-zA-Z0-9_-]/g, '')}`
  const sent: ChatRequest = { ...request, model: common.route.model.upstreamModel }
  const profile = modelEntryProfile(common.route.model)
  const target: ModelTarget = { profile, adjustments: [] }
  const body = JSON.stringify(upstream.encodeRequest(sent, target, common.output))
  // What was changed for the model reaches the operator, never a silent 400 from upstream.
  if (target.adjustments.length > 0) scope.event.adjustments = target.adjustments
  return {
    ...common,
    operation: upstream.operation(common.stream),
    body,
    headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
    answerJson(_text, answer) {
      const response = upstream.decodeResponse(answer, generateId, sent, profile)
      return {
        body: JSON.stringify(client.encodeResponse(response, meta)),
        usage: toTokenUsage(response.usage),
      }
    },
    translator: () =>
      translatedStream(
        upstream.streamDecoder(generateId, sent, profile),
        client.streamEncoder(meta),
        { abortAfterFailure: client.abortAfterFailure === true },
      ),
  }
}
