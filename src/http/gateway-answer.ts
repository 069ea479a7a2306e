/**
 * The gateway's answer before any runtime object is built: a status, headers (lowercase names)
 * and a body that is text, a stream of text, or nothing. The WHATWG handler turns it into a
 * `Response` (`toResponse`); the Node adapter writes it to a `ServerResponse` as it is, a text body
 * in one write with its `content-length`, so that no WHATWG object is built on Node's hot path
 * (ADR 0013).
 */
export type GatewayAnswer = {
  status: number
  headers: AnswerHeaders
  body: string | AnswerStream | null
}

/** Answer headers by lowercase name; built by the gateway, never keyed by client input. */
export type AnswerHeaders = Map<string, string>

/**
 * A streamed body, pulled a piece at a time: each piece is all the text ready at once (every frame
 * of one upstream read), so it costs one encode or one socket write.
 */
export type AnswerStream = {
  /** The next piece, or `undefined` once the body ended; rejects when the body fails. */
  next(): Promise<string | undefined>
  /** True once the last piece was handed out: a writer may end the body with it. */
  readonly done: boolean
  /** The client left: stop, and release what the body holds (the upstream call). */
  cancel(): void
}

/** The JSON content type every JSON answer carries, as `Response.json` sets it. */
export const jsonContentType = 'application/json'

/** A JSON answer: the value serialised once, with the JSON content type. */
export function jsonAnswer(value: unknown, status = 200): GatewayAnswer {
  return textAnswer(JSON.stringify(value), status, jsonContentType)
}

/** A text answer of a given content type. */
export function textAnswer(text: string, status: number, contentType: string): GatewayAnswer {
  return { status, headers: new Map([['content-type', contentType]]), body: text }
}

const encoder = new TextEncoder()

/** The answer as a WHATWG `Response`: what the public handler returns on every runtime. */
export function toResponse(answer: GatewayAnswer): Response {
  const headers = new Headers()
  for (const [name, value] of answer.headers) headers.set(name, value)
  const body = answer.body
  if (body === null || typeof body === 'string') {
    return new Response(body, { status: answer.status, headers })
  }
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const piece = await body.next()
        if (piece === undefined) {
          controller.close()
          return
        }
        controller.enqueue(encoder.encode(piece))
        if (body.done) controller.close()
      },
      cancel() {
        body.cancel()
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(stream, { status: answer.status, headers })
}
