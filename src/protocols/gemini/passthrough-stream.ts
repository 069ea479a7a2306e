import type { Usage } from '../../canonical/types'
import { emptyUsage, mergeUsage, toTokenUsage } from '../../canonical/usage'
import { GatewayError } from '../../errors'
import { findTopLevelMembers } from '../../internal/json-members'
import { isJsonObject, parseJson } from '../../internal/json'
import { setStringMember, spliceStringMember } from '../../internal/set-string-member'
import type { SseTranslator } from '../../canonical/sse-translator'
import { serializeSse, wireText, withData } from '../../sse/serialize'
import { geminiUsageToCanonical } from './canonical-usage'
import { geminiErrorToGateway, geminiStreamErrorFrame } from './errors'

const errorPattern = /^\s*\{\s*"error"\s*:/

/**
 * Passthrough for a Gemini client of a Gemini upstream: each event goes out as the upstream wrote
 * its data, but for the `modelVersion` every event repeats, set to the call name (ADR 0019). Only
 * the `usageMetadata` member of each event is located and parsed (it is cumulative: the last
 * wins), and `finishReason` is watched so that a stream cut short is reported. An upstream error
 * object is written the way Google writes it and ends the stream.
 *
 * @param callName the model name the client sent (in the path)
 */
export function geminiPassthroughStream(callName: string): SseTranslator {
  let usage: Usage = emptyUsage()
  let finished = false
  const encodedName = JSON.stringify(callName)
  return {
    push(message) {
      if (message.type === 'comment') return { frames: [serializeSse(message)] }
      const data = message.data
      if (errorPattern.test(data)) {
        const parsed = parseJson(data)
        const error = geminiErrorToGateway(parsed.ok ? parsed.value : undefined)
        return { frames: [geminiStreamErrorFrame(error)], final: 'error', error }
      }
      const found = findTopLevelMembers(data)
      let metadata: unknown
      if (found !== undefined && !found.keysAgree) {
        // A member name written with escapes or twice: only JSON.parse reads it as the client will.
        const parsed = parseJson(data)
        if (parsed.ok && isJsonObject(parsed.value)) metadata = parsed.value['usageMetadata']
      } else {
        const span = found?.members.get('usageMetadata')
        if (span !== undefined) {
          const parsed = parseJson(data.slice(span.valueStart, span.valueEnd))
          if (parsed.ok) metadata = parsed.value
        }
      }
      if (isJsonObject(metadata)) usage = mergeUsage(usage, geminiUsageToCanonical(metadata))
      if (!finished && data.includes('"finishReason"')) finished = true
      // The one scan above found `modelVersion` too, unless the keys need a re-encoding.
      const named =
        found === undefined
          ? data
          : found.keysAgree
            ? spliceStringMember(data, found, 'modelVersion', encodedName)
            : setStringMember(data, ['modelVersion'], callName)
      return { frames: [wireText(withData(message, named))] }
    },
    end() {
      if (finished) return { frames: [], final: 'ok' }
      const error = new GatewayError(
        'upstream_error',
        'The upstream stream ended without a finish reason.',
      )
      return { frames: [geminiStreamErrorFrame(error)], final: 'error', error }
    },
    failure: geminiStreamErrorFrame,
    usage: () => toTokenUsage(usage),
    abortAfterFailure: true,
  }
}
