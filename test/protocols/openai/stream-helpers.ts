import { readFileSync } from 'node:fs'
import type { StreamEvent } from '../../../src/canonical/types'
import { createOpenAIStreamDecoder } from '../../../src/protocols/openai/stream-decode'
import { decodeSseChunks, idGenerator } from '../../helpers/streams'

const encoder = new TextEncoder()

/** Every OpenAI stream fixture; each must decode, whole and split anywhere. */
export const openAIFixtures = [
  'text-stream-usage.sse',
  'text-stream-usage-crlf.sse',
  'tool-calls.sse',
  'no-arg-tool.sse',
  'tool-call-no-index.sse',
  'tool-call-single-shot.sse',
  'deepseek-reasoning.sse',
  'vllm-usage-null-choices.sse',
] as const

/** The text of `test/fixtures/openai/<name>`. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/openai/${name}`, import.meta.url), 'utf8')
}

/** Decodes an SSE body delivered in the given byte chunks, through the real SSE reader. */
export function decodeChunks(chunks: readonly Uint8Array[]): Promise<StreamEvent[]> {
  return decodeSseChunks(chunks, createOpenAIStreamDecoder({ generateId: idGenerator() }))
}

/** Decodes SSE text delivered in one piece. */
export function decodeText(text: string): Promise<StreamEvent[]> {
  return decodeChunks([encoder.encode(text)])
}

/** SSE text for chunk payloads; the string `'[DONE]'` becomes the sentinel. */
export function sse(...payloads: ReadonlyArray<object | '[DONE]'>): string {
  return payloads
    .map((payload) => `data: ${payload === '[DONE]' ? payload : JSON.stringify(payload)}\n\n`)
    .join('')
}

/** A `chat.completion.chunk` with one choice. */
export function chunk(delta: object, finishReason: string | null = null): object {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1763000000,
    model: 'test-model',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  }
}

/** A tool call's first delta; `undefined` leaves `index` or `id` out. */
export function header(index: number | undefined, id: string | undefined, name: string, args = '') {
  return {
    ...(index === undefined ? {} : { index }),
    ...(id === undefined ? {} : { id }),
    type: 'function',
    function: { name, arguments: args },
  }
}

/** An argument fragment; `undefined` leaves `index` out. */
export function fragment(index: number | undefined, args: string, id?: string) {
  return {
    ...(index === undefined ? {} : { index }),
    ...(id === undefined ? {} : { id }),
    function: { arguments: args },
  }
}

/** The tool-call events only. */
export function toolEvents(events: StreamEvent[]) {
  return events.filter((event) => event.type.startsWith('tool-call'))
}

export { idGenerator }
