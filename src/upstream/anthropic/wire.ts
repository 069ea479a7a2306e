import { unservedOperation, type HttpWire } from '../http-wire'

/** The `anthropic-version` sent when the client sent none. */
export const defaultAnthropicVersion = '2023-06-01'

/**
 * Anthropic's HTTP API: the base URL is the bare host, by the SDK's convention; the key goes in
 * `x-api-key`; every call needs an `anthropic-version` (the client's own is forwarded on
 * passthrough, else the default).
 */
export const anthropicWire: HttpWire = {
  path(call) {
    switch (call.operation) {
      case 'messages':
        return '/v1/messages'
      case 'count-tokens':
        return '/v1/messages/count_tokens'
      default:
        throw unservedOperation('Anthropic', call)
    }
  },
  credentialHeader: (apiKey) => ['x-api-key', apiKey],
  defaults(headers) {
    // lookup-safe: a prototype-less record
    if (headers['anthropic-version'] === undefined) {
      headers['anthropic-version'] = defaultAnthropicVersion
    }
  },
}
