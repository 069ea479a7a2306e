import { isJsonObject, parseJson } from '../../internal/json'
import type { CallSignal } from '../../internal/call-signal'
import { readUpstreamText } from '../read-upstream-answer'
import type { UpstreamCall, UpstreamProvider } from '../provider'
import { upstreamAnswerKey, type UpstreamAnswer } from '../upstream-answer'
import { awsErrorCode } from './bedrock-errors'

/** The most of a CountTokens answer or an error body read here (both are a few bytes). */
const maxBytes = 256 * 1024

/**
 * The provider with Bedrock's answers made readable by the rest of the gateway, on both of its
 * transports (`send`, and the Node transport's direct path):
 * - CountTokens' `{"inputTokens": N}` becomes Anthropic's `{"input_tokens": N}`;
 * - an error keeps the code AWS put in its `x-amzn-errortype` header as the body's `type`
 *   (`ThrottlingException`), for the error normaliser, which sees only the body.
 *
 * Other answers (every JSON and stream answer of a call) pass untouched.
 */
export function withBedrockAnswers(provider: UpstreamProvider): UpstreamProvider {
  const send = provider.send.bind(provider)
  const adapted: UpstreamProvider = Object.assign(provider, {
    async send(call: UpstreamCall) {
      const response = await send(call)
      if (!needsReading(call, response.ok)) return response
      const text = await response.text()
      const rewritten = rewrite(response.ok, text, response.headers.get('x-amzn-errortype'))
      const headers = new Headers(response.headers)
      headers.delete('content-length')
      return new Response(rewritten, { status: response.status, headers })
    },
  })
  const direct = (provider as DirectProvider)[upstreamAnswerKey]
  if (direct === undefined) return adapted
  return Object.assign(adapted, {
    [upstreamAnswerKey]: async (call: UpstreamCall, signal: CallSignal) => {
      const answer = await direct(call, signal)
      if (answer === undefined || !needsReading(call, answer.ok)) return answer
      const text = await readUpstreamText(answer.body, maxBytes)
      const rewritten = rewrite(answer.ok, text, answer.headers.get('x-amzn-errortype'))
      return textAnswer(answer, rewritten)
    },
  })
}

type DirectProvider = UpstreamProvider & {
  [upstreamAnswerKey]?: (call: UpstreamCall, signal: CallSignal) => Promise<UpstreamAnswer>
}

function needsReading(call: UpstreamCall, ok: boolean): boolean {
  return !ok || call.operation === 'count-tokens'
}

/** The answer's text as the gateway reads it (see `withBedrockAnswers`). */
function rewrite(ok: boolean, text: string, errorType: string | null): string {
  const parsed = parseJson(text)
  const body = parsed.ok && isJsonObject(parsed.value) ? parsed.value : undefined
  if (ok) {
    // A count answer without a count is left as it is: the gateway then refuses it as unusable.
    const tokens = body?.['inputTokens']
    return typeof tokens === 'number' ? JSON.stringify({ input_tokens: tokens }) : text
  }
  if (errorType === null || errorType === '') return text
  const type = awsErrorCode(errorType)
  return JSON.stringify(body === undefined ? { type, message: text } : { ...body, type })
}

/** An answer of the same status and headers, with `text` as its body. */
function textAnswer(answer: UpstreamAnswer, text: string): UpstreamAnswer {
  let bytes: Uint8Array | undefined = new TextEncoder().encode(text)
  return {
    status: answer.status,
    ok: answer.ok,
    type: answer.type,
    headers: answer.headers,
    body: {
      read: async () => {
        const value = bytes
        bytes = undefined
        return value === undefined ? { done: true } : { done: false, value }
      },
      cancel: async () => {
        bytes = undefined
      },
    },
    text: async () => text,
  }
}
