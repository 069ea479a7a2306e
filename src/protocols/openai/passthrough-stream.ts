import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import { setStringMember } from '../../internal/set-string-member'
import type { SseTranslator } from '../../canonical/sse-translator'
import { serializeSse } from '../../sse/serialize'
import type { TokenUsage } from '../../usage/usage-meter'
import { openAIStreamErrorFrame } from './errors'
import { readOpenAIUsage } from './canonical-usage'

/**
 * A usage object in a chunk, its name written plainly or with `\u` escapes (`"us\u0061ge"`), as
 * `JSON.parse` and the client read both: an upstream cannot hide its usage from the meter by
 * spelling. `"usage":null` does not match, and neither can content text (its quotes are escaped).
 */
const usagePattern = /"(?:u|\\u0075)(?:s|\\u0073)(?:a|\\u0061)(?:g|\\u0067)(?:e|\\u0065)"\s*:\s*\{/
const errorPattern = /^\s*\{\s*"error"\s*:/

/**
 * Passthrough for an OpenAI client of an OpenAI upstream: each event's data goes out as the
 * upstream wrote it, but for the `model` every chunk repeats, set to the call name (ADR 0019).
 * Only chunks carrying a usage object are parsed, to meter them; the usage-only chunk the gateway
 * asked for is dropped when the client did not ask for it. An upstream error payload gets the
 * spec's `event: error` framing and ends the stream; so does a body that ends before `[DONE]`.
 */
export function openAIPassthroughStream(options: {
  clientWantsUsage: boolean
  /** The model name the client sent, which every chunk names. */
  callName: string
}): SseTranslator {
  let usage: TokenUsage | undefined
  return {
    push(upstream) {
      if (upstream.type === 'comment') return { frames: [serializeSse(upstream)] }
      if (upstream.data === '[DONE]') return { frames: [serializeSse(upstream)], final: 'ok' }
      if (errorPattern.test(upstream.data)) {
        const parsed = parseJson(upstream.data)
        const body = parsed.ok ? parsed.value : undefined
        return {
          frames: [`event: error\ndata: ${upstream.data}\n\n`],
          final: 'error',
          error: new GatewayError('upstream_error', upstreamMessage(body), {
            upstream: { status: 502, body },
          }),
        }
      }
      const data = setStringMember(upstream.data, ['model'], options.callName)
      const message = data === upstream.data ? upstream : { ...upstream, data }
      if (usagePattern.test(data)) {
        const parsed = parseJson(data)
        if (parsed.ok && isJsonObject(parsed.value)) {
          usage = readOpenAIUsage(parsed.value['usage']) ?? usage
          const choices = parsed.value['choices']
          const usageOnly = !Array.isArray(choices) || choices.length === 0
          if (usageOnly && !options.clientWantsUsage) return { frames: [] }
        }
      }
      return { frames: [serializeSse(message)] }
    },
    end() {
      // No `[DONE]`: the answer may be cut short, and its usage chunk (sent last) is missing.
      const error = new GatewayError('upstream_error', 'The upstream stream ended before [DONE].')
      return { frames: [openAIStreamErrorFrame(error)], final: 'error', error }
    },
    failure: openAIStreamErrorFrame,
    usage: () => usage,
  }
}

function upstreamMessage(body: unknown): string {
  if (
    isJsonObject(body) &&
    isJsonObject(body['error']) &&
    typeof body['error']['message'] === 'string'
  ) {
    return body['error']['message']
  }
  return 'The upstream sent an error instead of a stream.'
}
