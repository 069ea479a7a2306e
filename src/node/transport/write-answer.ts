import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { AnswerStream, GatewayAnswer } from '../../http/gateway-answer'

/**
 * Writes a gateway answer to a Node response with as few writes as Node allows: a text body goes
 * with its headers and `content-length` in one `end()`; a stream's headers go out with its first
 * piece, each piece (every frame of one upstream read) is one write, and the last piece goes with
 * the chunked terminator in one `end()`. A slow client pauses the stream (`drain`); a client that
 * leaves cancels it.
 *
 * @param closeAfter the request was not read in full: close the connection after the answer
 */
export async function writeAnswer(
  answer: GatewayAnswer,
  response: ServerResponse,
  headOnly: boolean,
  closeAfter: boolean,
): Promise<void> {
  const headers: OutgoingHttpHeaders = Object.fromEntries(answer.headers)
  if (closeAfter) headers['connection'] = 'close'
  const body = answer.body
  if (body === null || typeof body === 'string') {
    const text = body ?? ''
    headers['content-length'] = Buffer.byteLength(text)
    response.writeHead(answer.status, headers)
    response.end(headOnly ? undefined : text)
    return
  }
  response.writeHead(answer.status, headers)
  if (headOnly) {
    body.cancel()
    response.end()
    return
  }
  await pipeStream(body, response)
}

async function pipeStream(body: AnswerStream, response: ServerResponse): Promise<void> {
  let gone = response.destroyed
  const onClose = () => {
    if (response.writableFinished || gone) return
    gone = true
    body.cancel()
  }
  response.once('close', onClose)
  try {
    for (;;) {
      let piece: string | undefined
      try {
        piece = await body.next()
      } catch (error) {
        // The stream ends abnormally on purpose (a client that only notices a failure that way,
        // after its error frame): the connection is cut, which is the answer.
        response.destroy(error instanceof Error ? error : undefined)
        return
      }
      if (gone) return
      if (piece === undefined) {
        response.end()
        return
      }
      if (body.done) {
        response.end(piece)
        return
      }
      if (!response.write(piece)) await drained(response)
      if (gone) return
    }
  } finally {
    response.off('close', onClose)
  }
}

/** Resolves when the response drains, or when it closes first. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done)
      response.off('close', done)
      resolve()
    }
    response.on('drain', done)
    response.on('close', done)
  })
}
