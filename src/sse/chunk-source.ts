/** A body read a chunk at a time: a `ReadableStream`'s reader is one. */
export type ChunkSource = {
  read(): Promise<{ done: true; value?: unknown } | { done: false; value: Uint8Array }>
  cancel(reason?: unknown): Promise<void>
}
