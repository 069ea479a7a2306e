import { isJsonObject, parseJson } from '../../internal/json'
import type { MockMessage } from './mock-reply'

/** The parts of a chat request body the mock reads, in either protocol. */
export type MockRequest = {
  model: string
  stream: boolean
  messages: MockMessage[]
  raw: Record<string, unknown>
}

/** Reads a messages or chat-completions body leniently: the mock answers whatever it is sent. */
export function readMockRequest(body: string): MockRequest {
  const parsed = parseJson(body)
  const raw = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
  const messages = Array.isArray(raw['messages']) ? raw['messages'].filter(isJsonObject) : []
  return {
    model: typeof raw['model'] === 'string' ? raw['model'] : 'mock',
    stream: raw['stream'] === true,
    raw,
    messages: messages.map((message) => ({
      role: typeof message['role'] === 'string' ? message['role'] : '',
      text: contentText(message['content']),
    })),
  }
}

/** The text of string content or of the text parts of block content. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .filter(isJsonObject)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .join('')
}
