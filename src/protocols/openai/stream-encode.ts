import type { StreamEncoder } from '../../canonical/stream-codec'
import type { Usage } from '../../canonical/types'
import { emptyUsage, mergeUsage } from '../../canonical/usage'
import { GatewayError } from '../../errors'
import { canonicalUsageToOpenAI } from './canonical-usage'
import { openAIStreamErrorFrame } from './errors'
import { canonicalFinishToOpenAI } from './finish-reason'

/** Options of the OpenAI stream encoder. */
export type OpenAIStreamEncoderOptions = {
  /** The `chatcmpl-…` id every chunk repeats. */
  id: string
  /** The model name the client asked for (ID-02). */
  model: string
  /** Unix seconds. */
  created: number
  /** The client asked for `stream_options.include_usage`. */
  includeUsage: boolean
}

type ToolCallDelta =
  | {
      index: number
      id: string
      type: 'function'
      function: { name: string; arguments: string }
    }
  | { index: number; function: { arguments: string } }

type ChunkDelta = {
  role?: 'assistant'
  content?: string
  refusal?: string | null
  reasoning_content?: string
  tool_calls?: ToolCallDelta[]
}

type Chunk = {
  id: string
  object: 'chat.completion.chunk'
  created: number
  model: string
  choices: Array<{
    index: 0
    delta: ChunkDelta
    logprobs: null
    finish_reason: ReturnType<typeof canonicalFinishToOpenAI> | null
  }>
  usage?: ReturnType<typeof canonicalUsageToOpenAI> | null
}

const done = 'data: [DONE]\n\n'

/**
 * Canonical stream events → OpenAI chat-completions SSE, exactly as OpenAI streams it: every
 * chunk repeats `id`, `object`, `created` and `model` (ID-01); the first
 * chunk is `{role: 'assistant', content: '', refusal: null}`; `finish` becomes one chunk with
 * `delta: {}` and `finish_reason`, then the usage chunk (`choices: []`) when the client asked for
 * it, then `data: [DONE]`. With `includeUsage` every earlier chunk has `usage: null`, as OpenAI
 * sends it; without, no chunk has a usage field.
 *
 * Block events carry nothing on this wire and are dropped. Reasoning goes out as
 * `delta.reasoning_content`, DeepSeek style, and signatures are never exposed (RR-01). Tool calls
 * are numbered by their own counter 0, 1, 2…, never by the canonical block index: a text or
 * reasoning block before the first call must not make it `index: 1` (clients
 * index their calls by it). An `error` event becomes OpenAI's `event: error` frame and ends the
 * stream without `[DONE]`; nothing is written after the terminal frame.
 *
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options
 * @example
 * const encoder = createOpenAIStreamEncoder({ id: 'chatcmpl-1', model, created, includeUsage })
 * for (const event of events) write(encoder.push(event))
 * write(encoder.end())
 */
export function createOpenAIStreamEncoder(options: OpenAIStreamEncoderOptions): StreamEncoder {
  let state: 'idle' | 'streaming' | 'done' = 'idle'
  /** Canonical block index → `tool_calls` index. */
  const toolIndexes = new Map<number, number>()
  let usage: Usage = emptyUsage()

  const frame = (chunk: Chunk): string => `data: ${JSON.stringify(chunk)}\n\n`

  // What every delta chunk repeats around its delta, serialised once: the same bytes as
  // `frame()` of the whole chunk, with one small `JSON.stringify` per event instead of a chunk
  // object, its choice and their serialisation (translated streams spent most of their CPU on
  // garbage collection).
  const [deltaPrefix, deltaSuffix] = frame({
    id: options.id,
    object: 'chat.completion.chunk',
    created: options.created,
    model: options.model,
    choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: null }],
    ...(options.includeUsage ? { usage: null } : {}),
  }).split('"delta":{}') as [string, string]

  const chunk = (
    delta: ChunkDelta,
    finishReason: Chunk['choices'][number]['finish_reason'] = null,
  ): string =>
    finishReason === null
      ? `${deltaPrefix}"delta":${JSON.stringify(delta)}${deltaSuffix}`
      : frame({
          id: options.id,
          object: 'chat.completion.chunk',
          created: options.created,
          model: options.model,
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
          ...(options.includeUsage ? { usage: null } : {}),
        })

  /** The role chunk comes first, whatever event comes first (Portkey #1399 shipped without). */
  const begin = (frames: string[]) => {
    if (state !== 'idle') return
    state = 'streaming'
    frames.push(chunk({ role: 'assistant', content: '', refusal: null }))
  }

  return {
    push(event) {
      if (state === 'done') return []
      const frames: string[] = []
      switch (event.type) {
        case 'message-start':
          begin(frames)
          break
        case 'text-start':
        case 'text-end':
        case 'reasoning-start':
        case 'reasoning-end':
        case 'tool-call-end':
          break
        case 'text-delta':
          if (event.delta === '') break
          begin(frames)
          frames.push(chunk({ content: event.delta }))
          break
        case 'reasoning-delta':
          if (event.delta === '') break
          begin(frames)
          frames.push(chunk({ reasoning_content: event.delta }))
          break
        case 'tool-call-start': {
          begin(frames)
          const index = toolIndexes.size
          toolIndexes.set(event.index, index)
          const call = {
            index,
            id: event.id,
            type: 'function',
            function: { name: event.name, arguments: '' },
          } satisfies ToolCallDelta
          frames.push(chunk({ tool_calls: [call] }))
          break
        }
        case 'tool-call-delta': {
          const index = toolIndexes.get(event.index)
          // A delta for a call that never started has no index a client could place it at.
          if (index === undefined || event.argumentsDelta === '') break
          frames.push(
            chunk({ tool_calls: [{ index, function: { arguments: event.argumentsDelta } }] }),
          )
          break
        }
        case 'usage':
          usage = mergeUsage(usage, event.usage)
          break
        case 'finish':
          begin(frames)
          if (event.refusal !== undefined && event.refusal !== '') {
            frames.push(chunk({ refusal: event.refusal }))
          }
          frames.push(chunk({}, canonicalFinishToOpenAI(event.finishReason)))
          if (options.includeUsage) {
            frames.push(
              frame({
                id: options.id,
                object: 'chat.completion.chunk',
                created: options.created,
                model: options.model,
                choices: [],
                usage: canonicalUsageToOpenAI(mergeUsage(usage, event.usage)),
              }),
            )
          }
          frames.push(done)
          state = 'done'
          break
        case 'error':
          frames.push(openAIStreamErrorFrame(event.error))
          state = 'done'
          break
        default: {
          const unknown: never = event
          throw new Error(`Unknown stream event ${JSON.stringify(unknown)}`)
        }
      }
      return frames
    },

    end() {
      if (state === 'done') return []
      state = 'done'
      // Decoders always end with `finish` or `error`; without either the answer is incomplete.
      return [
        openAIStreamErrorFrame(
          new GatewayError('upstream_error', 'The stream ended before the answer finished.'),
        ),
      ]
    },
  }
}
