import type { ProtocolName } from '../protocols/protocol-name'
import type { SseMessage } from '../sse/sse-message'

/** What an upstream answer says of itself, for its attempt's span. */
export type AnswerFacts = {
  responseId?: string | undefined
  responseModel?: string | undefined
  finishReasons?: string[] | undefined
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length <= 256 ? value : undefined

/** The id, model and finish reasons of a JSON answer, read from its fields by protocol. */
export function jsonAnswerFacts(
  protocol: ProtocolName,
  body: Record<string, unknown>,
): AnswerFacts {
  const reasons = (list: unknown, field: string): string[] | undefined => {
    if (!Array.isArray(list)) return undefined
    const found: string[] = []
    for (const item of list.slice(0, 128)) {
      const reason = text((item as Record<string, unknown> | null)?.[field])
      if (reason !== undefined) found.push(reason)
    }
    return found.length > 0 ? found : undefined
  }
  switch (protocol) {
    case 'openai':
      return {
        responseId: text(body.id),
        responseModel: text(body.model),
        finishReasons: reasons(body.choices, 'finish_reason'),
      }
    case 'anthropic': {
      const reason = text(body.stop_reason)
      return {
        responseId: text(body.id),
        responseModel: text(body.model),
        finishReasons: reason === undefined ? undefined : [reason],
      }
    }
    case 'gemini':
      return {
        responseId: text(body.responseId),
        responseModel: text(body.modelVersion),
        finishReasons: reasons(body.candidates, 'finishReason'),
      }
    case 'responses': {
      const status = text(body.status)
      return {
        responseId: text(body.id),
        responseModel: text(body.model),
        finishReasons: status === undefined ? undefined : [status],
      }
    }
    case 'converse': {
      // Converse names neither the answer nor the model.
      const reason = text(body.stopReason)
      return { finishReasons: reason === undefined ? undefined : [reason] }
    }
  }
}

const idPattern = /"(?:id|responseId)":"([^"\\]{1,256})"/
const modelPattern = /"(?:model|modelVersion)":"([^"\\]{1,256})"/
const finishPattern = /"(?:finish_reason|stop_reason|finishReason|stopReason)":"([^"\\]{1,64})"/g
const responsesEndPattern = /^response\.(completed|incomplete|failed)$/

/**
 * Watches a stream's upstream events for the same facts, by pattern over each event's text (no
 * second parse): the first id and model seen, and every finish reason (a Responses stream's final
 * status). Only made when telemetry is on.
 */
export function createStreamFactsWatch() {
  const facts: AnswerFacts = {}
  const finishReasons: string[] = []
  return {
    facts,
    finishReasons,
    see(message: SseMessage): void {
      if (message.type !== 'event') return
      const data = message.data
      if (facts.responseId === undefined) facts.responseId = idPattern.exec(data)?.[1]
      if (facts.responseModel === undefined) facts.responseModel = modelPattern.exec(data)?.[1]
      if (data.includes('eason"')) {
        for (const match of data.matchAll(finishPattern)) {
          if (finishReasons.length < 128) finishReasons.push(match[1]!)
        }
      }
      const ended = message.event === undefined ? null : responsesEndPattern.exec(message.event)
      if (ended !== null) finishReasons.push(ended[1]!)
    },
  }
}
