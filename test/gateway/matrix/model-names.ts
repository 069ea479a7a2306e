import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import type { GatewayHandler } from '../../../src/index'
import { fetchThrough, gatewayUrl, keys } from '../../helpers/gateway'
import type { Family } from './upstream-answers'

/**
 * The model an answer names, as each official SDK hands it to its user: `model` (chat
 * completions, messages, Responses), `modelVersion` (Gemini); and the `x-gateway-upstream-model`
 * header. A stream names it in several places: each chunk (chat completions, Gemini), the
 * `message_start` event (messages), each event that carries the response (Responses).
 */
export type ModelNames = { named: string[]; upstreamHeader: string | null }

/** Per client protocol: the model names of a JSON answer and of a stream. */
export type ModelNameClient = {
  json(model: string): Promise<ModelNames>
  stream(model: string): Promise<ModelNames>
}

const question = 'Capital?'

/** The official SDKs, pointed at the in-process gateway, reading the model of each answer. */
export function modelNameClients(handler: () => GatewayHandler): Record<Family, ModelNameClient> {
  const openai = () =>
    new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(handler()),
      maxRetries: 0,
    })
  const anthropic = () =>
    new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(handler()),
      maxRetries: 0,
    })
  const genai = () =>
    new GoogleGenAI({
      apiKey: keys.main,
      httpOptions: { baseUrl: gatewayUrl, fetch: fetchThrough(handler()) } as never,
    })
  const upstreamHeader = (headers: Headers | Record<string, string> | undefined) =>
    headers instanceof Headers
      ? headers.get('x-gateway-upstream-model')
      : (headers?.['x-gateway-upstream-model'] ?? null)
  return {
    openai: {
      async json(model) {
        const { data, response } = await openai()
          .chat.completions.create({ model, messages: [{ role: 'user', content: question }] })
          .withResponse()
        return { named: [data.model], upstreamHeader: upstreamHeader(response.headers) }
      },
      async stream(model) {
        const { data, response } = await openai()
          .chat.completions.create({
            model,
            messages: [{ role: 'user', content: question }],
            stream: true,
          })
          .withResponse()
        const named: string[] = []
        for await (const chunk of data) named.push(chunk.model)
        return { named, upstreamHeader: upstreamHeader(response.headers) }
      },
    },
    anthropic: {
      async json(model) {
        const { data, response } = await anthropic()
          .messages.create({
            model,
            max_tokens: 50,
            messages: [{ role: 'user', content: question }],
          })
          .withResponse()
        return { named: [data.model], upstreamHeader: upstreamHeader(response.headers) }
      },
      async stream(model) {
        const { data, response } = await anthropic()
          .messages.create({
            model,
            max_tokens: 50,
            messages: [{ role: 'user', content: question }],
            stream: true,
          })
          .withResponse()
        const named: string[] = []
        for await (const event of data) {
          if (event.type === 'message_start') named.push(event.message.model)
        }
        return { named, upstreamHeader: upstreamHeader(response.headers) }
      },
    },
    gemini: {
      async json(model) {
        const answer = await genai().models.generateContent({ model, contents: question })
        return {
          named: [answer.modelVersion ?? '(none)'],
          upstreamHeader: upstreamHeader(answer.sdkHttpResponse?.headers),
        }
      },
      async stream(model) {
        const named: string[] = []
        let header: string | null = null
        for await (const chunk of await genai().models.generateContentStream({
          model,
          contents: question,
        })) {
          named.push(chunk.modelVersion ?? '(none)')
          header ??= upstreamHeader(chunk.sdkHttpResponse?.headers)
        }
        return { named, upstreamHeader: header }
      },
    },
    responses: {
      async json(model) {
        const { data, response } = await openai()
          .responses.create({ model, input: question })
          .withResponse()
        return { named: [data.model], upstreamHeader: upstreamHeader(response.headers) }
      },
      async stream(model) {
        const { data, response } = await openai()
          .responses.create({ model, input: question, stream: true })
          .withResponse()
        const named: string[] = []
        for await (const event of data) {
          if ('response' in event) named.push(event.response.model)
        }
        return { named, upstreamHeader: upstreamHeader(response.headers) }
      },
    },
  }
}
