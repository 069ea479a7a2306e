import { http, HttpResponse } from 'msw'
import type { GatewayHandler } from '../../src/index'
import { orderChecked } from './responses-stream'
import {
  checkGeminiRequest,
  geminiModelAnswer,
  recordScriptedSignatures,
} from './fakes/gemini-fake'
import {
  answer,
  modelAnswer,
  parseBody,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from './upstream'

/** The mocked Gemini upstream's base URL: the bare host, by the genai SDK's convention. */
export const geminiBaseUrl = 'https://gemini.test'

/** The upstream key the gateway must send as `x-goog-api-key`. */
export const geminiApiKey = 'gemini-upstream-secret-000000000000'

/**
 * msw handlers standing in for Gemini: `:generateContent`, `:streamGenerateContent?alt=sse` and
 * `:countTokens` under `/v1beta/models/`. Generation enforces Gemini's rules for the model in the
 * path (`checkGeminiRequest`), then answers as the test says or as the fake model; every call is
 * recorded.
 */
export function geminiHandlers(state: {
  calls: UpstreamCallRecord[]
  behaviour: () => UpstreamBehaviour
}) {
  return [
    http.post(`${geminiBaseUrl}/v1beta/models/*`, async ({ request }) => {
      const body = await request.text()
      state.calls.push({ url: request.url, headers: request.headers, body, signal: request.signal })
      if (request.url.includes(':countTokens')) return HttpResponse.json({ totalTokens: 17 })
      const model = decodeURIComponent(
        /\/models\/([^:]+):/.exec(new URL(request.url).pathname)?.[1] ?? '',
      )
      const parsed = parseBody(body)
      // Gemini's rules hold whatever the test scripted: a request they refuse gets Google's 400.
      const refused = parsed === undefined ? undefined : checkGeminiRequest(model, parsed)
      if (refused !== undefined) return HttpResponse.json(refused.body, { status: refused.status })
      const behaviour = state.behaviour()
      // A scripted answer's signatures are the upstream's own: valid when they come back.
      if (behaviour.kind === 'json') recordScriptedSignatures({ body: behaviour.body })
      if (behaviour.kind === 'sse') recordScriptedSignatures({ frames: behaviour.frames })
      if (behaviour.kind === 'model')
        return modelAnswer(
          geminiModelAnswer(model, parsed ?? {}, request.url.includes(':streamGenerateContent')),
        )
      return answer(behaviour, request.signal)
    }),
  ]
}

/**
 * Routes the genai SDK's requests (it always uses the global fetch), and any other client's that
 * uses it, to an in-process gateway; Responses streams are order-checked as they are read.
 */
export function gatewayHandler(origin: string, gateway: () => GatewayHandler) {
  return http.all(`${origin}/*`, async ({ request }) =>
    orderChecked(await gateway()(request), request),
  )
}

/** A `GenerateContentResponse` as Gemini sends it. */
export function geminiResponse(
  parts: object[],
  options: { finishReason?: string; usage?: object } = {},
) {
  return {
    candidates: [
      { content: { role: 'model', parts }, finishReason: options.finishReason ?? 'STOP', index: 0 },
    ],
    usageMetadata: options.usage ?? {
      promptTokenCount: 20,
      candidatesTokenCount: 6,
      totalTokenCount: 26,
    },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp-upstream-1',
  }
}

/** Gemini SSE events for a text answer: new parts only, cumulative usage, no terminator. */
export function geminiTextFrames(
  pieces: readonly string[],
  options: { delimiter?: string; failAfter?: boolean } = {},
): string[] {
  const delimiter = options.delimiter ?? '\r\n\r\n'
  const frames = pieces.map((text, index) => {
    const last = index === pieces.length - 1 && options.failAfter !== true
    const event = {
      candidates: [
        {
          content: { role: 'model', parts: [{ text }] },
          index: 0,
          ...(last ? { finishReason: 'STOP' } : {}),
        },
      ],
      usageMetadata: {
        promptTokenCount: 12,
        candidatesTokenCount: index + 1,
        totalTokenCount: 13 + index,
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'resp-stream-1',
    }
    return `data: ${JSON.stringify(event)}${delimiter}`
  })
  if (options.failAfter === true)
    frames.push(
      JSON.stringify({
        error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' },
      }),
    )
  return frames
}
