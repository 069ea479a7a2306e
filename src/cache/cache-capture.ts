import type { AnswerStream } from '../http/gateway-answer'

/**
 * A stream as it goes to the client, each piece copied (never held back) until `limit`
 * characters, and its end told to `end` once: the whole text when it ended after its last piece
 * within the limit; `undefined` when it failed, the client left, or it outgrew the limit.
 */
export function captureStream(
  stream: AnswerStream,
  limit: number,
  end: (text: string | undefined) => void,
): AnswerStream {
  let text: string | undefined = ''
  let ended = false
  const finish = (whole: string | undefined) => {
    if (ended) return
    ended = true
    end(whole)
  }
  return {
    get done() {
      return stream.done
    },
    async next() {
      let piece: string | undefined
      try {
        piece = await stream.next()
      } catch (error) {
        finish(undefined)
        throw error
      }
      if (piece !== undefined && text !== undefined) {
        text = text.length + piece.length > limit ? undefined : text + piece
      }
      if (piece === undefined || stream.done) finish(text)
      return piece
    },
    cancel() {
      stream.cancel()
      finish(undefined)
    },
  }
}

/**
 * An array of SSE frames as a stream: frames are joined into pieces of about `pieceChars`, so
 * that a long replay costs few socket writes, and handed out as the client reads. `end` hears
 * how it ended, once.
 */
export function framesStream(
  frames: readonly string[],
  pieceChars: number,
  end: (outcome: 'ok' | 'aborted') => void,
): AnswerStream {
  let at = 0
  let done = false
  const finish = (outcome: 'ok' | 'aborted') => {
    if (done) return
    done = true
    end(outcome)
  }
  return {
    get done() {
      return done
    },
    next() {
      if (done || at >= frames.length) {
        finish('ok')
        return Promise.resolve(undefined)
      }
      let piece = ''
      while (
        at < frames.length &&
        (piece === '' || piece.length + frames[at]!.length <= pieceChars)
      ) {
        piece += frames[at++]
      }
      if (at >= frames.length) finish('ok')
      return Promise.resolve(piece)
    },
    cancel() {
      finish('aborted')
    },
  }
}
