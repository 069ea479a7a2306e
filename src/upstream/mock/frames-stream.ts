const encoder = new TextEncoder()

/** A body that sends the SSE frames one at a time, `delayMs` apart, as a real server would. */
export function framesToStream(
  frames: readonly string[],
  delayMs: number,
): ReadableStream<Uint8Array> {
  let next = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next >= frames.length) {
        controller.close()
        return
      }
      if (delayMs > 0 && next > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
      controller.enqueue(encoder.encode(frames[next]!))
      next += 1
    },
  })
}

/** Response headers of an SSE answer. */
export const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
}
