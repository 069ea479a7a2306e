import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import { createMemberSplice, quotedSearch } from '../../internal/set-string-member'
import type { SseTranslator } from '../../canonical/sse-translator'
import { serializeSse, wireText, withData } from '../../sse/serialize'
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

const usageKey = quotedSearch('usage')

/**
 * Whether a chunk holds a usage object (`usagePattern`), by native searches for the plain spelling
 * — every chunk of a stream that asked for usage carries `"usage":null` — and the pattern only
 * when the text has an escape that could spell the name otherwise.
 */
export function hasUsageObject(data: string): boolean {
  for (let at = usageKey.indexIn(data, 0); at >= 0; at = usageKey.indexIn(data, at + 1)) {
    let index = at + 7
    while (isJsonSpace(data.charCodeAt(index))) index += 1
    if (data.charCodeAt(index) !== 0x3a) continue
    index += 1
    while (isJsonSpace(data.charCodeAt(index))) index += 1
    if (data.charCodeAt(index) === 0x7b) return true
  }
  return data.includes('\\u') && usagePattern.test(data)
}

/** The whitespace `\s` matches in the text of a JSON value outside strings. */
function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09
}

/**
 * Passthrough for an OpenAI client of an OpenAI upstream: each event's data goes out as the
 * upstream wrote it, but for the `model` every chunk repeats, set to the call name (ADR 0019).
 * Only chunks carrying a usage object are parsed, to meter them; the usage-only chunk the gateway
 * asked for is dropped when the client did not ask for it. An upstream error payload gets
 * OpenAI's `event: error` framing and ends the stream; so does a body that ends before `[DONE]`.
 */
export function openAIPassthroughStream(options: {
  clientWantsUsage: boolean
  /** The model name the client sent, which every chunk names. */
  callName: string
}): SseTranslator {
  let usage: TokenUsage | undefined
  const spliceModel = createMemberSplice('model', options.callName)
  return {
    push(upstream) {
      if (upstream.type === 'comment') return { frames: [serializeSse(upstream)] }
      if (upstream.data === '[DONE]') return { frames: [wireText(upstream)], final: 'ok' }
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
      const data = spliceModel(upstream.data)
      const message = withData(upstream, data)
      if (hasUsageObject(data)) {
        const parsed = parseJson(data)
        if (parsed.ok && isJsonObject(parsed.value)) {
          usage = readOpenAIUsage(parsed.value['usage']) ?? usage
          const choices = parsed.value['choices']
          const usageOnly = !Array.isArray(choices) || choices.length === 0
          if (usageOnly && !options.clientWantsUsage) return { frames: [] }
        }
      }
      return { frames: [wireText(message)] }
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
