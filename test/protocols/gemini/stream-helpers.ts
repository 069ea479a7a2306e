import { readFileSync } from 'node:fs'
import type { StreamEvent } from '../../../src/canonical/types'
import { createGeminiStreamDecoder } from '../../../src/protocols/gemini/stream-decode'
import { decodeSseChunks, idGenerator } from '../../helpers/streams'

const encoder = new TextEncoder()

/** Every Gemini stream fixture; each must decode, whole and split anywhere. */
export const geminiFixtures = ['text.sse', 'tool-call.sse', 'thinking.sse'] as const

/** The three event delimiters `@google/genai` accepts, which a Gemini upstream may use (WIRE-G-01). */
export const delimiters = { LF: '\n', CRLF: '\r\n', CR: '\r' } as const

/** The text of `test/fixtures/gemini/<name>` (written with LF line ends). */
export function readFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/gemini/${name}`, import.meta.url), 'utf8')
}

/** The LF transcript with every line end replaced, so `\n\n` becomes `\r\n\r\n` or `\r\r`. */
export function withLineEnd(text: string, lineEnd: string): string {
  return text.replaceAll('\n', lineEnd)
}

/** Decodes an SSE body delivered in the given byte chunks, through the real SSE reader. */
export function decodeChunks(chunks: readonly Uint8Array[]): Promise<StreamEvent[]> {
  return decodeSseChunks(chunks, createGeminiStreamDecoder({ generateId: idGenerator() }))
}

/** Decodes SSE text delivered in one piece. */
export function decodeText(text: string): Promise<StreamEvent[]> {
  return decodeChunks([encoder.encode(text)])
}

/** SSE text for `GenerateContentResponse` payloads, framed as `data: <json>\n\n`. */
export function sse(...payloads: object[]): string {
  return payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).join('')
}

/** A `GenerateContentResponse` with candidate 0 holding `parts`. */
export function response(
  parts: object[],
  extra: { finishReason?: string; usageMetadata?: object } = {},
): object {
  const { finishReason, usageMetadata } = extra
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        ...(finishReason === undefined ? {} : { finishReason }),
        index: 0,
      },
    ],
    ...(usageMetadata === undefined ? {} : { usageMetadata }),
    modelVersion: 'gemini-test',
    responseId: 'resp-test',
  }
}

export { idGenerator }
