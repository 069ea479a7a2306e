import type { AnswerStream } from '../http/gateway-answer'

/** An answer body the gateway writes to as messages come: SSE events pushed, then the end. */
export type PushStream = AnswerStream & {
  push(text: string): void
  end(): void
}

/**
 * A body fed by `push`: each `next()` hands out all the text queued so far, or waits for more.
 * `onCancel` runs when the client leaves (the upstream call is then aborted).
 */
export function createPushStream(onCancel: () => void): PushStream {
  let queued = ''
  let ended = false
  let done = false
  let wake: (() => void) | undefined
  return {
    push(text) {
      if (ended) return
      queued += text
      wake?.()
    },
    end() {
      ended = true
      wake?.()
    },
    async next() {
      while (queued === '' && !ended) await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
      if (queued === '') {
        done = true
        return undefined
      }
      const text = queued
      queued = ''
      if (ended) done = true
      return text
    },
    get done() {
      return done
    },
    cancel() {
      ended = true
      onCancel()
    },
  }
}

/** One JSON-RPC message as an SSE event. */
export function sseEvent(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`
}
