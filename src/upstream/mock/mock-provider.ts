import type { ProtocolName } from '../../protocols/protocol-name'
import { answerAnthropicCountTokens, answerAnthropicMessages } from './anthropic-mock'
import { answerGeminiCountTokens, answerGeminiGenerate } from './gemini-mock'
import { answerOpenAIChat } from './openai-mock'
import { answerResponses } from './responses-mock'
import { answerGeminiEmbed, answerOpenAIEmbeddings } from './embedding-mock'
import { upstreamSpecificationVersion, type UpstreamCall, type UpstreamProvider } from '../provider'

/** Settings of the built-in mock upstream. */
export type MockProviderOptions = {
  id: string
  protocol: ProtocolName
  weight?: number | undefined
  /** The most calls it takes at once (see `UpstreamProvider.maxConcurrent`). */
  maxConcurrent?: number | undefined
  /** A fixed reply; by default the mock echoes the last user message. */
  reply?: string | undefined
  /** Pause between streamed chunks, to make a demo stream visible (default 0). */
  chunkDelayMs?: number | undefined
  now?: (() => number) | undefined
}

/**
 * An upstream that answers in-process, in its group's protocol: deterministic text (an echo of the
 * last user message), streamed in several chunks when asked, with plausible usage. The offline
 * demo and users' own tests run on it.
 */
export function createMockProvider(options: MockProviderOptions): UpstreamProvider {
  const now = options.now ?? Date.now
  let served = 0
  return {
    id: options.id,
    protocol: options.protocol,
    specificationVersion: upstreamSpecificationVersion,
    weight: options.weight,
    maxConcurrent: options.maxConcurrent,
    async send(call: UpstreamCall) {
      call.signal.throwIfAborted()
      served += 1
      const id = `mock${served.toString().padStart(6, '0')}`
      const answer = { reply: options.reply, chunkDelayMs: options.chunkDelayMs, now, id }
      switch (call.operation) {
        case 'chat-completions':
          return answerOpenAIChat(call.body, answer)
        case 'messages':
          return answerAnthropicMessages(call.body, answer)
        case 'count-tokens':
          return answerAnthropicCountTokens(call.body)
        case 'generate-content':
          return answerGeminiGenerate(call.body, call.model, { ...answer, stream: false })
        case 'stream-generate-content':
          return answerGeminiGenerate(call.body, call.model, { ...answer, stream: true })
        case 'gemini-count-tokens':
          return answerGeminiCountTokens(call.body)
        case 'responses':
          return answerResponses(call.body, answer)
        case 'embeddings':
          return answerOpenAIEmbeddings(call.body, call.model)
        case 'embed-content':
        case 'batch-embed-contents':
          return answerGeminiEmbed(call.body, call.operation === 'batch-embed-contents')
        case 'converse':
        case 'converse-stream':
          // The mock kind serves no converse group (`mockKind.protocols`).
          throw new Error('The mock upstream does not speak the Converse API.')
        default: {
          const unknown: never = call.operation
          throw new Error(`The mock upstream cannot answer ${String(unknown)}.`)
        }
      }
    },
  }
}
