import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import type { GatewayHandler } from '../../src/index'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'

/** A client protocol of the gateway, spoken through its official SDK. */
export type ClientKind = 'chat' | 'messages' | 'gemini' | 'responses'

/** What a client saw: an answer's text, an error before it, or an error once it had begun. */
export type ClientResult =
  | { kind: 'answer'; text: string }
  | { kind: 'error'; status: number | undefined; message: string }
  | { kind: 'mid-stream'; text: string; message: string }

/**
 * One call through the client protocol's official SDK, with the SDK's own retries off
 * (`maxRetries: 0`, genai's retries are off unless asked for), so that every retry is the
 * gateway's.
 */
export async function callThrough(
  client: ClientKind,
  gateway: GatewayHandler,
  model: string,
  stream: boolean,
  options: { signal?: AbortSignal; apiKey?: string } = {},
): Promise<ClientResult> {
  const fetch = fetchThrough(gateway)
  const apiKey = options.apiKey ?? keys.main
  let text = ''
  let begun = false
  try {
    switch (client) {
      case 'chat': {
        const openai = new OpenAI({ apiKey, baseURL: `${gatewayUrl}/v1`, fetch, maxRetries: 0 })
        const messages = [{ role: 'user' as const, content: 'Say hello.' }]
        if (!stream) {
          const answer = await openai.chat.completions.create(
            { model, messages },
            { signal: options.signal },
          )
          return { kind: 'answer', text: answer.choices[0]?.message.content ?? '' }
        }
        const events = await openai.chat.completions.create(
          { model, messages, stream: true, stream_options: { include_usage: true } },
          { signal: options.signal },
        )
        begun = true
        for await (const chunk of events) text += chunk.choices[0]?.delta.content ?? ''
        return { kind: 'answer', text }
      }
      case 'messages': {
        const anthropic = new Anthropic({ apiKey, baseURL: gatewayUrl, fetch, maxRetries: 0 })
        const request = {
          model,
          max_tokens: 256,
          messages: [{ role: 'user' as const, content: 'Say hello.' }],
        }
        if (!stream) {
          const answer = await anthropic.messages.create(request, { signal: options.signal })
          return { kind: 'answer', text: textOf(answer.content) }
        }
        const events = await anthropic.messages.create(
          { ...request, stream: true },
          { signal: options.signal },
        )
        begun = true
        for await (const event of events) {
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
            text += event.delta.text
        }
        return { kind: 'answer', text }
      }
      case 'gemini': {
        const genai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gatewayUrl, fetch } })
        const request = {
          model,
          contents: 'Say hello.',
          config: { abortSignal: options.signal },
        }
        if (!stream) {
          const answer = await genai.models.generateContent(request)
          return { kind: 'answer', text: answer.text ?? '' }
        }
        const events = await genai.models.generateContentStream(request)
        begun = true
        for await (const chunk of events) text += chunk.text ?? ''
        return { kind: 'answer', text }
      }
      case 'responses': {
        const openai = new OpenAI({ apiKey, baseURL: `${gatewayUrl}/v1`, fetch, maxRetries: 0 })
        if (!stream) {
          const answer = await openai.responses.create(
            { model, input: 'Say hello.' },
            { signal: options.signal },
          )
          return { kind: 'answer', text: answer.output_text }
        }
        const events = await openai.responses.create(
          { model, input: 'Say hello.', stream: true },
          { signal: options.signal },
        )
        begun = true
        for await (const event of events) {
          if (event.type === 'response.output_text.delta') text += event.delta
          if (event.type === 'response.failed' || event.type === 'error')
            return { kind: 'mid-stream', text, message: JSON.stringify(event) }
        }
        return { kind: 'answer', text }
      }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (begun) return { kind: 'mid-stream', text, message }
    return { kind: 'error', status: statusOf(error), message }
  }
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('')
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const status = (error as { status?: unknown }).status
  if (typeof status === 'number') return status
  // genai's ApiError carries the status too, and says it in its message.
  const match = /"code":\s*(\d{3})|got status: (\d{3})/.exec((error as Error).message ?? '')
  return match === null ? undefined : Number(match[1] ?? match[2])
}

/** Waits, a few ms at a time for at most a second, until `done` holds (records settle late). */
export async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
}
