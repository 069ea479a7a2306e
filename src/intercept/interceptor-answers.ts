import {
  jsonContentType,
  textAnswer,
  type AnswerStream,
  type GatewayAnswer,
} from '../http/gateway-answer'

/** A JSON answer from text already serialised (a cached body), as an interceptor returns it. */
export function jsonTextAnswer(text: string, status = 200): GatewayAnswer {
  return textAnswer(text, status, jsonContentType)
}

/**
 * A server-sent-events answer from pieces of text already framed as SSE (`data: …\n\n`, a cached
 * stream's text), handed to the client one piece per pull, as the client reads.
 */
export function sseAnswer(pieces: Iterable<string> | AsyncIterable<string>): GatewayAnswer {
  const iterator =
    Symbol.asyncIterator in pieces
      ? pieces[Symbol.asyncIterator]()
      : (pieces as Iterable<string>)[Symbol.iterator]()
  let done = false
  const body: AnswerStream = {
    get done() {
      return done
    },
    async next() {
      if (done) return undefined
      const step = await iterator.next()
      if (step.done === true) {
        done = true
        return undefined
      }
      return step.value
    },
    cancel() {
      done = true
      void iterator.return?.()
    },
  }
  const headers = new Map([
    ['content-type', 'text/event-stream; charset=utf-8'],
    ['cache-control', 'no-cache'],
  ])
  return { status: 200, headers, body }
}
