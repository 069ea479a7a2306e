import type { StreamEncoder } from '../../canonical/stream-codec'
import type { StreamEvent, Usage } from '../../canonical/types'
import { emptyUsage, mergeUsage } from '../../canonical/usage'
import { serializeSse } from '../../sse/serialize'
import { canonicalUsageToAnthropic } from './canonical-usage'
import { anthropicStreamErrorFrame } from './errors'
import { canonicalFinishToAnthropic } from './finish-reason'
import type { AnthropicStartBlock, AnthropicStreamEvent } from './stream-events'
import { gatewayThinkingSignature } from './thinking-signature'

/** Options of the Anthropic stream encoder. */
export type AnthropicStreamEncoderOptions = {
  /** The message id the client sees, `msg_…` (ID-01). */
  id: string
  /** The model name the client sees (ID-02). */
  model: string
}

/**
 * The canonical block being written, with the Anthropic index it was given. Text opens on its first
 * non-empty delta (`wireIndex` stays undefined until then).
 */
type CurrentBlock =
  | { kind: 'text'; index: number; wireIndex: number | undefined }
  | { kind: 'thinking'; index: number; wireIndex: number }
  | { kind: 'redacted'; index: number; wireIndex: number }
  | { kind: 'tool-call'; index: number; wireIndex: number }
  | { kind: 'dropped'; index: number }

type BlockOf<Kind extends CurrentBlock['kind']> = Extract<CurrentBlock, { kind: Kind }>
type EventOf<Type extends StreamEvent['type']> = Extract<StreamEvent, { type: Type }>

/**
 * Canonical stream events → an Anthropic messages stream, framed as the API frames it: every frame
 * has both `event: <type>` and `data: <json of that type>` (the SDK ignores
 * frames without `event:`). Rules pinned here:
 *
 * - `message_start` comes first, then a `ping`, with the latest usage known (real `input_tokens`
 *   when the upstream reported them).
 * - Block indices are 0, 1, 2… in the order this encoder opens blocks, not the canonical indices:
 *   a block that writes nothing takes no index. Blocks never interleave: an event for another
 *   block closes the open one first, and events for a closed block are dropped.
 * - Text blocks open on their first non-empty delta: Anthropic rejects empty text blocks when a
 *   client sends them back.
 * - Tool input goes only through `input_json_delta`; `content_block_start.input` is `{}` (Claude
 *   Code ignores it).
 * - Thinking streams live. Its `signature_delta` carries Anthropic's own signature, or, for
 *   reasoning from another protocol (DeepSeek's `reasoning_content`), the gateway's tag, which is
 *   never mistaken for Anthropic's and is dropped before anything goes back to Anthropic (RR-02,
 *   TOOL-H-10). Redacted thinking is written only when it came from Anthropic.
 * - `finish` closes the open block, then writes one `message_delta` (cumulative usage) and
 *   `message_stop`; `error` writes the in-stream error event without closing blocks or
 *   inventing a `message_stop`. Nothing follows either.
 * - `end()` writes nothing: a stream that stopped short is the relay's to report.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @example
 * const encoder = createAnthropicStreamEncoder({ id: 'msg_gw_1', model: 'claude-sonnet-4-6' })
 * const frames = events.flatMap((event) => encoder.push(event))
 */
export function createAnthropicStreamEncoder(
  options: AnthropicStreamEncoderOptions,
): StreamEncoder {
  let started = false
  let terminated = false
  let usage: Usage = emptyUsage()
  let nextWireIndex = 0
  let current: CurrentBlock | undefined
  /** Canonical indices of the blocks already closed: their late events are dropped. */
  const closed = new Set<number>()

  const start = (frames: string[]) => {
    if (started) return
    started = true
    frames.push(
      frame({
        type: 'message_start',
        message: {
          id: options.id,
          type: 'message',
          role: 'assistant',
          content: [],
          model: options.model,
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          usage: canonicalUsageToAnthropic(usage),
        },
      }),
      frame({ type: 'ping' }),
    )
  }

  /** Writes `content_block_start` at the next Anthropic index, and returns that index. */
  const openBlock = (frames: string[], contentBlock: AnthropicStartBlock): number => {
    start(frames)
    const index = nextWireIndex++
    frames.push(frame({ type: 'content_block_start', index, content_block: contentBlock }))
    return index
  }

  const closeCurrent = (frames: string[]) => {
    const block = current
    current = undefined
    if (block === undefined) return
    closed.add(block.index)
    switch (block.kind) {
      case 'text':
        if (block.wireIndex !== undefined) {
          frames.push(frame({ type: 'content_block_stop', index: block.wireIndex }))
        }
        return
      case 'redacted':
      case 'tool-call':
        frames.push(frame({ type: 'content_block_stop', index: block.wireIndex }))
        return
      case 'thinking':
        // Closed before its end: no signature arrived, so it gets the gateway's tag.
        frames.push(signatureFrame(block.wireIndex, gatewayThinkingSignature()))
        frames.push(frame({ type: 'content_block_stop', index: block.wireIndex }))
        return
      case 'dropped':
        return
      default: {
        const unknown: never = block
        throw new Error(`Unknown block ${JSON.stringify(unknown)}`)
      }
    }
  }

  /**
   * The block of a canonical index: the current one if it has that index (and kind), else a new
   * one made by `create` once the current block is closed. `undefined` for a closed block.
   */
  const blockFor = <Kind extends CurrentBlock['kind']>(
    frames: string[],
    index: number,
    kind: Kind,
    create: () => BlockOf<Kind>,
  ): BlockOf<Kind> | undefined => {
    if (closed.has(index)) return undefined
    if (current?.index === index) {
      return current.kind === kind ? (current as BlockOf<Kind>) : undefined
    }
    closeCurrent(frames)
    const block = create()
    current = block
    return block
  }

  const endBlock = (frames: string[], index: number) => {
    if (current?.index === index) closeCurrent(frames)
  }

  const writeText = (frames: string[], index: number, delta: string) => {
    const block = blockFor(frames, index, 'text', () => ({
      kind: 'text',
      index,
      wireIndex: undefined,
    }))
    if (block === undefined || delta === '') return
    block.wireIndex ??= openBlock(frames, { type: 'text', text: '' })
    frames.push(
      frame({
        type: 'content_block_delta',
        index: block.wireIndex,
        delta: { type: 'text_delta', text: delta },
      }),
    )
  }

  const startReasoning = (frames: string[], { index, redacted }: EventOf<'reasoning-start'>) => {
    if (redacted === undefined) {
      blockFor(frames, index, 'thinking', () => ({
        kind: 'thinking',
        index,
        wireIndex: openBlock(frames, { type: 'thinking', thinking: '', signature: '' }),
      }))
    } else if (redacted.protocol === 'anthropic') {
      blockFor(frames, index, 'redacted', () => ({
        kind: 'redacted',
        index,
        wireIndex: openBlock(frames, { type: 'redacted_thinking', data: redacted.value }),
      }))
    } else {
      blockFor(frames, index, 'dropped', () => ({ kind: 'dropped', index }))
    }
  }

  const writeReasoning = (frames: string[], { index, delta }: EventOf<'reasoning-delta'>) => {
    const block = blockFor(frames, index, 'thinking', () => ({
      kind: 'thinking',
      index,
      wireIndex: openBlock(frames, { type: 'thinking', thinking: '', signature: '' }),
    }))
    if (block === undefined || delta === '') return
    frames.push(
      frame({
        type: 'content_block_delta',
        index: block.wireIndex,
        delta: { type: 'thinking_delta', thinking: delta },
      }),
    )
  }

  const endReasoning = (frames: string[], { index, signature }: EventOf<'reasoning-end'>) => {
    const block = current
    if (block?.index !== index || block.kind !== 'thinking') {
      endBlock(frames, index)
      return
    }
    current = undefined
    closed.add(index)
    // Anthropic's own signature goes back to Anthropic clients; anything else gets the gateway's
    // tag (with an OpenAI-compatible upstream's origin, when it has one), never a forged signature.
    const value =
      signature?.protocol === 'anthropic' ? signature.value : gatewayThinkingSignature(signature)
    frames.push(
      signatureFrame(block.wireIndex, value),
      frame({ type: 'content_block_stop', index: block.wireIndex }),
    )
  }

  const startToolCall = (frames: string[], { index, id, name }: EventOf<'tool-call-start'>) => {
    blockFor(frames, index, 'tool-call', () => ({
      kind: 'tool-call',
      index,
      // `input` stays empty: the input goes in `input_json_delta`s only.
      wireIndex: openBlock(frames, { type: 'tool_use', id, name, input: {} }),
    }))
  }

  const writeToolInput = (
    frames: string[],
    { index, argumentsDelta }: EventOf<'tool-call-delta'>,
  ) => {
    // A delta without its start has no id or name to open a block with: dropped.
    const block = current
    if (block?.kind !== 'tool-call' || block.index !== index || argumentsDelta === '') return
    frames.push(
      frame({
        type: 'content_block_delta',
        index: block.wireIndex,
        delta: { type: 'input_json_delta', partial_json: argumentsDelta },
      }),
    )
  }

  const finish = (frames: string[], event: EventOf<'finish'>) => {
    closeCurrent(frames)
    start(frames)
    usage = mergeUsage(usage, event.usage)
    const stopReason = canonicalFinishToAnthropic(event.finishReason, event.stopSequence)
    frames.push(
      frame({
        type: 'message_delta',
        delta: {
          stop_reason: stopReason,
          stop_sequence: event.stopSequence ?? null,
          stop_details:
            stopReason === 'refusal' && event.refusal !== undefined
              ? { type: 'refusal', category: null, explanation: event.refusal }
              : null,
        },
        usage: canonicalUsageToAnthropic(usage),
      }),
      frame({ type: 'message_stop' }),
    )
  }

  return {
    push(event: StreamEvent): string[] {
      if (terminated) return []
      const frames: string[] = []
      switch (event.type) {
        case 'message-start':
          if (event.usage !== undefined) usage = mergeUsage(usage, event.usage)
          start(frames)
          break
        case 'usage':
          usage = mergeUsage(usage, event.usage)
          break
        case 'text-start':
          writeText(frames, event.index, '')
          break
        case 'text-delta':
          writeText(frames, event.index, event.delta)
          break
        case 'reasoning-start':
          startReasoning(frames, event)
          break
        case 'reasoning-delta':
          writeReasoning(frames, event)
          break
        case 'reasoning-end':
          endReasoning(frames, event)
          break
        case 'tool-call-start':
          startToolCall(frames, event)
          break
        case 'tool-call-delta':
          writeToolInput(frames, event)
          break
        case 'text-end':
        case 'tool-call-end':
          endBlock(frames, event.index)
          break
        case 'finish':
          finish(frames, event)
          terminated = true
          break
        case 'error':
          frames.push(anthropicStreamErrorFrame(event.error))
          terminated = true
          break
        default: {
          const unknown: never = event
          throw new Error(`Unknown stream event ${JSON.stringify(unknown)}`)
        }
      }
      return frames
    },
    end(): string[] {
      return []
    },
  }
}

/** One SSE frame, named after its payload's type as the API names them. */
function frame(event: AnthropicStreamEvent): string {
  return serializeSse({ type: 'event', event: event.type, data: JSON.stringify(event) })
}

/** The `signature_delta` that closes a thinking block. */
function signatureFrame(index: number, signature: string): string {
  return frame({
    type: 'content_block_delta',
    index,
    delta: { type: 'signature_delta', signature },
  })
}
