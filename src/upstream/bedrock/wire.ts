import type { HttpWire } from '../http-wire'
import { unservedOperation } from '../http-wire'
import type { BedrockApi } from './bedrock-stream'
import { foundationModelId, modelPathSegment } from './endpoint'

/**
 * Bedrock Runtime's paths: InvokeModel (`/model/{id}/invoke`, `/invoke-with-response-stream`)
 * for a Claude (`anthropic`) group, Converse (`/model/{id}/converse`, `/converse-stream`) for a
 * `converse` group, and CountTokens (`/model/{foundation id}/count-tokens`, whose model must be a
 * foundation model: an inference profile's prefix is dropped). The model id is one path segment,
 * encoded once. A Bedrock API key goes as a bearer token.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_Operations_Amazon_Bedrock_Runtime.html
 */
export function bedrockWire(api: BedrockApi): HttpWire {
  return {
    path(call) {
      if (call.operation === 'count-tokens') {
        return `/model/${modelPathSegment(foundationModelId(call.model))}/count-tokens`
      }
      const model = `/model/${modelPathSegment(call.model)}`
      if (api === 'invoke') {
        if (call.operation !== 'messages')
          throw unservedOperation('AWS Bedrock (InvokeModel)', call)
        return `${model}/${call.stream ? 'invoke-with-response-stream' : 'invoke'}`
      }
      if (call.operation.startsWith('embed') || call.operation.includes('-embed')) {
        throw unservedOperation('AWS Bedrock (Converse)', call)
      }
      return `${model}/${call.stream ? 'converse-stream' : 'converse'}`
    },
    credentialHeader: (apiKey) => ['authorization', `Bearer ${apiKey}`],
  }
}
