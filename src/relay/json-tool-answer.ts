import type { StreamDecoder } from '../canonical/stream-codec'
import type { ChatResponse, FinishReason, StreamEvent } from '../canonical/types'

/**
 * A JSON answer that came back as the input of the forced answer tool (`anthropicJsonTool`),
 * turned back into what the client asked for: text holding the JSON, finished `stop` rather than
 * `tool-calls`, as vercel/ai's `isJsonResponseFromTool` does: the client asked for JSON, not a
 * tool call. Calls of the client's own tools stay calls.
 */
export function unwrapJsonToolResponse(response: ChatResponse, toolName: string): ChatResponse {
  let unwrapped = false
  const content = response.content.map((part) => {
    if (part.type !== 'tool-call' || part.name !== toolName) return part
    unwrapped = true
    return { type: 'text' as const, text: part.arguments.trim() === '' ? '{}' : part.arguments }
  })
  if (!unwrapped) return response
  const callsLeft = content.some((part) => part.type === 'tool-call')
  return { ...response, content, finishReason: finishOf(response.finishReason, callsLeft) }
}

/**
 * The stream form of `unwrapJsonToolResponse`: the answer tool's call becomes a text block whose
 * deltas are its argument deltas, so the JSON streams to the client as text.
 */
export function unwrapJsonToolStream(decoder: StreamDecoder, toolName: string): StreamDecoder {
  const answerBlocks = new Set<number>()
  let otherCalls = false
  const map = (events: StreamEvent[]): StreamEvent[] =>
    events.map((event): StreamEvent => {
      switch (event.type) {
        case 'tool-call-start':
          if (event.name !== toolName) {
            otherCalls = true
            return event
          }
          answerBlocks.add(event.index)
          return { type: 'text-start', index: event.index }
        case 'tool-call-delta':
          return answerBlocks.has(event.index)
            ? { type: 'text-delta', index: event.index, delta: event.argumentsDelta }
            : event
        case 'tool-call-end':
          return answerBlocks.has(event.index) ? { type: 'text-end', index: event.index } : event
        case 'finish':
          return answerBlocks.size === 0
            ? event
            : { ...event, finishReason: finishOf(event.finishReason, otherCalls) }
        default:
          return event
      }
    })
  return { push: (message) => map(decoder.push(message)), end: () => map(decoder.end()) }
}

function finishOf(finish: FinishReason, callsLeft: boolean): FinishReason {
  if (callsLeft || finish.unified !== 'tool-calls') return finish
  return { unified: 'stop' }
}
