import { decodeAnthropicRequest } from '../../../src/protocols/anthropic/request-decode'
import { encodeAnthropicRequest } from '../../../src/protocols/anthropic/request-encode'
import { anthropicMessagesRequestSchema } from '../../../src/protocols/anthropic/request-schema'
import { decodeGeminiRequest } from '../../../src/protocols/gemini/request-decode'
import { encodeGeminiRequest } from '../../../src/protocols/gemini/request-encode'
import { geminiGenerateContentBodySchema } from '../../../src/protocols/gemini/request-schema'
import { decodeOpenAIRequest } from '../../../src/protocols/openai/request-decode'
import { encodeOpenAIRequest } from '../../../src/protocols/openai/request-encode'
import { openAIChatRequestSchema } from '../../../src/protocols/openai/request-schema'

/** A Gemini body (any casing) in canonical form. */
export function fromGemini(body: unknown, stream = false) {
  return decodeGeminiRequest(geminiGenerateContentBodySchema.parse(body), 'm', stream)
}
/** A Gemini body as it reaches an OpenAI upstream. */
export const gToO = (body: unknown): Record<string, any> => encodeOpenAIRequest(fromGemini(body))
/** A Gemini body as it reaches an Anthropic upstream. */
export const gToA = (body: unknown): Record<string, any> =>
  encodeAnthropicRequest(fromGemini(body), { defaultMaxTokens: 4096 })
/** An OpenAI body as it reaches a Gemini upstream. */
export const oToG = (body: unknown): Record<string, any> =>
  encodeGeminiRequest(decodeOpenAIRequest(openAIChatRequestSchema.parse(body)))
/** An Anthropic body as it reaches a Gemini upstream. */
export const aToG = (body: unknown): Record<string, any> =>
  encodeGeminiRequest(decodeAnthropicRequest(anthropicMessagesRequestSchema.parse(body)))

export const text = (value: string) => ({ text: value })
export const gUser = (...parts: object[]) => ({ role: 'user', parts })
export const gModel = (...parts: object[]) => ({ role: 'model', parts })
export const call = (name: string, args?: object, extra: object = {}) => ({
  functionCall: { name, ...(args === undefined ? {} : { args }) },
  ...extra,
})
export const answer = (name: string, response: object) => ({ functionResponse: { name, response } })
export const oUser = (content: unknown) => ({ role: 'user', content })
export const oCall = (id: string, name: string, args = '{}') => ({
  id,
  type: 'function',
  function: { name, arguments: args },
})
