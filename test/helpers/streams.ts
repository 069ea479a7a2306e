import type { StreamDecoder } from '../../src/canonical/stream-codec'
import type { StreamEvent } from '../../src/canonical/types'
import { createSseReader } from '../../src/sse/sse-reader'

const encoder = new TextEncoder()

/** A byte stream that delivers `bytes` in the given pieces. */
export function streamOfChunks(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index]
      index += 1
      if (chunk === undefined) controller.close()
      else controller.enqueue(chunk)
    },
  })
}

/** Every way to cut a text in two, as bytes: at each byte offset (inside code points too). */
export function* everySplit(text: string): Generator<Uint8Array[]> {
  const bytes = encoder.encode(text)
  for (let offset = 0; offset <= bytes.length; offset += 1) {
    yield [bytes.slice(0, offset), bytes.slice(offset)]
  }
}

/** The text cut into pieces of random sizes (1 to 16 bytes), reproducible from the seed. */
export function randomSplit(text: string, seed: number): Uint8Array[] {
  const bytes = encoder.encode(text)
  const chunks: Uint8Array[] = []
  let state = seed
  let offset = 0
  while (offset < bytes.length) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    const size = 1 + (state % 16)
    chunks.push(bytes.slice(offset, offset + size))
    offset += size
  }
  return chunks
}

/** Every byte as its own chunk. */
export function byteByByte(text: string): Uint8Array[] {
  return Array.from(encoder.encode(text), (byte) => Uint8Array.of(byte))
}

/** A deterministic id generator: `gen-1`, `gen-2`… */
export function idGenerator(prefix = 'gen'): () => string {
  let count = 0
  return () => {
    count += 1
    return `${prefix}-${count}`
  }
}

/**
 * Decodes an SSE body delivered in the given byte chunks through the real SSE reader and a
 * protocol's stream decoder, including what the decoder owes at the end.
 */
export async function decodeSseChunks(
  chunks: readonly Uint8Array[],
  decoder: StreamDecoder,
): Promise<StreamEvent[]> {
  const reader = createSseReader(streamOfChunks(chunks), { maxBufferSize: 1 << 20 })
  const events: StreamEvent[] = []
  for (let message = await reader.next(); message !== undefined; message = await reader.next()) {
    events.push(...decoder.push(message))
  }
  events.push(...decoder.end())
  return events
}
