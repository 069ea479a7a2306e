import type { ClientCodec } from '../../canonical/client-codec'
import type { ResponsesClientContext } from './request-decode'
import { encodeResponsesResponse } from './response'
import type { ResponsesObject } from './response-object'
import { createResponsesStreamEncoder } from './stream-encode'

/**
 * The client side of the Responses API for one request: unlike the other protocols', its answer
 * depends on the request (the echoed fields, which tools were `custom` or namespaced, whether
 * reasoning is summarised or carried encrypted), so it is built per request.
 *
 * @param onComplete receives each completed or incomplete answer, with every reasoning blob, for
 *   the response store
 */
export function responsesClientCodec(
  context: ResponsesClientContext,
  onComplete: (response: ResponsesObject) => void,
): ClientCodec {
  return {
    encodeResponse(response, meta) {
      const answer = encodeResponsesResponse(response, meta, context)
      if (answer.status !== 'failed')
        onComplete(encodeResponsesResponse(response, meta, context, true))
      return answer
    },
    streamEncoder: (meta) =>
      createResponsesStreamEncoder({
        requestId: meta.requestId,
        model: meta.model,
        created: meta.created,
        context,
        onComplete,
      }),
  }
}
