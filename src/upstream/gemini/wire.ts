import { unservedOperation, type HttpWire } from '../http-wire'

/**
 * Google's Gemini API: the base URL is the bare host, by the SDK's convention; the model is part
 * of the path; the key goes in `x-goog-api-key`; a stream is asked for as SSE (`alt=sse`).
 */
export const geminiWire: HttpWire = {
  path(call) {
    const model = `/v1beta/models/${encodeURIComponent(call.model)}`
    switch (call.operation) {
      case 'generate-content':
        return `${model}:generateContent`
      case 'stream-generate-content':
        return `${model}:streamGenerateContent?alt=sse`
      case 'gemini-count-tokens':
        return `${model}:countTokens`
      case 'embed-content':
        return `${model}:embedContent`
      case 'batch-embed-contents':
        return `${model}:batchEmbedContents`
      default:
        throw unservedOperation('Gemini', call)
    }
  },
  credentialHeader: (apiKey) => ['x-goog-api-key', apiKey],
}
