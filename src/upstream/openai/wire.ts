import { unservedOperation, type HttpWire } from '../http-wire'

/**
 * OpenAI's HTTP API and every server compatible with it (vLLM, Ollama, DeepSeek, OpenRouter…):
 * the base URL includes `/v1`, by the SDK's convention, and the key is a bearer token. The
 * Responses API is the same family, on its own path.
 */
export const openaiWire: HttpWire = {
  path(call) {
    switch (call.operation) {
      case 'chat-completions':
        return '/chat/completions'
      case 'responses':
        return '/responses'
      case 'embeddings':
        return '/embeddings'
      default:
        throw unservedOperation('OpenAI', call)
    }
  },
  credentialHeader: (apiKey) => ['authorization', `Bearer ${apiKey}`],
}
