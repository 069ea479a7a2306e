import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import { setStringMember } from '../../internal/set-string-member'
import type { SseTranslator } from '../../canonical/sse-translator'
import { serializeSse, wireText, withData } from '../../sse/serialize'
import type { Usage } from '../../canonical/types'
import { emptyUsage, mergeUsage, toTokenUsage } from '../../canonical/usage'
import { anthropicUsageToCanonical } from './canonical-usage'
import { anthropicStreamErrorFrame, anthropicErrorToGateway } from './errors'

/**
 * Passthrough for a messages client of an Anthropic upstream: every frame goes out as the upstream
 * wrote it, but for `message_start`'s `message.model`, set to the call name (ADR 0019). Only
 * `message_start` and `message_delta` are parsed, for usage (message_delta's is cumulative and
 * wins over message_start's). An `error` event ends the stream as it is.
 *
 * @param callName the model name the client sent
 */
export function anthropicPassthroughStream(callName: string): SseTranslator {
  let usage: Usage = emptyUsage()
  let sawStop = false
  return {
    push(upstream) {
      if (upstream.type === 'comment') return { frames: [serializeSse(upstream)] }
      const name = upstream.event
      const message =
        name === 'message_start'
          ? withData(upstream, setStringMember(upstream.data, ['message', 'model'], callName))
          : upstream
      if (name === 'message_start' || name === 'message_delta') {
        const parsed = parseJson(message.data)
        if (parsed.ok && isJsonObject(parsed.value)) {
          const holder = name === 'message_start' ? parsed.value['message'] : parsed.value
          if (isJsonObject(holder))
            usage = mergeUsage(usage, anthropicUsageToCanonical(holder['usage']))
        }
      }
      if (name === 'message_stop') {
        sawStop = true
        return { frames: [wireText(message)], final: 'ok' }
      }
      if (name === 'error') {
        const parsed = parseJson(message.data)
        return {
          frames: [wireText(message)],
          final: 'error',
          error: anthropicErrorToGateway(parsed.ok ? parsed.value : undefined),
        }
      }
      return { frames: [wireText(message)] }
    },
    end() {
      if (sawStop) return { frames: [], final: 'ok' }
      const error = new GatewayError(
        'upstream_error',
        'The upstream stream ended before message_stop.',
      )
      return { frames: [anthropicStreamErrorFrame(error)], final: 'error', error }
    },
    failure: anthropicStreamErrorFrame,
    usage: () => toTokenUsage(usage),
  }
}
