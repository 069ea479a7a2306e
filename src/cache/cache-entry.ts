import type { ChatResponse, StreamEvent } from '../canonical/types'
import type { UsageCost } from '../pricing/usage-cost'
import type { TokenUsage } from '../usage/usage-meter'

/**
 * What the cache keeps of an answer: its canonical form, which the client protocol's encoders
 * turn back into a JSON answer or a stream (so that one entry serves both), the pieces each
 * content part arrived in (a stream hit is replayed in the same deltas; a JSON answer's parts are
 * one piece each), and the usage and cost the original call was metered at.
 */
export type CacheEntry = {
  v: 1
  response: ChatResponse
  /** Per content part (by index), its deltas in order; absent for a part that came whole. */
  pieces: Array<string[] | null>
  usage: TokenUsage | undefined
  cost: UsageCost | null | undefined
  /** Epoch ms: when it was stored (the `age` header of a hit). */
  storedAt: number
}

/** Whether an answer may be kept under the group's `toolCalls` setting. */
export function keepsToolCalls(response: ChatResponse, toolCalls: boolean): boolean {
  return toolCalls || !response.content.some((part) => part.type === 'tool-call')
}

/**
 * Assembles a stream's canonical events into the answer they make, keeping each part's deltas.
 * `undefined` for a stream that did not end well: an error event, or no `finish` (cut short).
 */
export function assembleStream(
  events: readonly StreamEvent[],
): { response: ChatResponse; pieces: Array<string[] | null> } | undefined {
  const response: ChatResponse = {
    id: '',
    model: '',
    content: [],
    finishReason: { unified: 'other' },
    usage: { input: {}, output: {} },
  }
  const pieces: Array<string[] | null> = []
  let finished = false
  for (const event of events) {
    switch (event.type) {
      case 'message-start':
        response.id = event.id
        response.model = event.model
        if (event.usage !== undefined) response.usage = event.usage
        break
      case 'text-start':
        response.content[event.index] = { type: 'text', text: '' }
        pieces[event.index] = []
        break
      case 'reasoning-start':
        response.content[event.index] = {
          type: 'reasoning',
          text: '',
          ...(event.redacted === undefined ? {} : { redacted: event.redacted }),
        }
        pieces[event.index] = []
        break
      case 'tool-call-start':
        response.content[event.index] = {
          type: 'tool-call',
          id: event.id,
          name: event.name,
          arguments: '',
          ...(event.signature === undefined ? {} : { signature: event.signature }),
        }
        pieces[event.index] = []
        break
      case 'text-delta':
      case 'reasoning-delta': {
        const part = response.content[event.index]
        if (part === undefined || part.type === 'tool-call') return undefined
        part.text += event.delta
        pieces[event.index]?.push(event.delta)
        break
      }
      case 'tool-call-delta': {
        const part = response.content[event.index]
        if (part?.type !== 'tool-call') return undefined
        part.arguments += event.argumentsDelta
        pieces[event.index]?.push(event.argumentsDelta)
        break
      }
      case 'reasoning-end': {
        const part = response.content[event.index]
        if (part?.type === 'reasoning' && event.signature !== undefined) {
          part.signature = event.signature
        }
        break
      }
      case 'text-end':
      case 'tool-call-end':
        break
      case 'usage':
        response.usage = event.usage
        break
      case 'finish':
        finished = true
        response.finishReason = event.finishReason
        if (event.stopSequence !== undefined) response.stopSequence = event.stopSequence
        if (event.refusal !== undefined) response.refusal = event.refusal
        response.usage = event.usage
        break
      case 'error':
        return undefined
      default: {
        const unknown: never = event
        return unknown
      }
    }
  }
  // A hole in the parts (an index never started) is a stream the decoder did not understand.
  for (let index = 0; index < response.content.length; index++) {
    if (response.content[index] === undefined) return undefined
    pieces[index] ??= null
  }
  return finished ? { response, pieces } : undefined
}

/**
 * The canonical events that replay an answer as a stream: the message's start, each part's start,
 * its deltas as they first arrived (one delta for a part that came whole), its end, then the
 * finish with the usage. Every encoder writes a well-formed stream of its protocol from them.
 */
export function replayEvents(entry: CacheEntry, id: string): StreamEvent[] {
  const { response } = entry
  const events: StreamEvent[] = [{ type: 'message-start', id, model: response.model }]
  response.content.forEach((part, index) => {
    const pieces = entry.pieces[index] ?? undefined
    if (part.type === 'text') {
      events.push({ type: 'text-start', index })
      for (const delta of pieces ?? [part.text]) events.push({ type: 'text-delta', index, delta })
      events.push({ type: 'text-end', index })
    } else if (part.type === 'reasoning') {
      events.push({
        type: 'reasoning-start',
        index,
        ...(part.redacted === undefined ? {} : { redacted: part.redacted }),
      })
      const deltas = pieces ?? (part.text === '' ? [] : [part.text])
      for (const delta of deltas) events.push({ type: 'reasoning-delta', index, delta })
      events.push({
        type: 'reasoning-end',
        index,
        ...(part.signature === undefined ? {} : { signature: part.signature }),
      })
    } else {
      events.push({
        type: 'tool-call-start',
        index,
        id: part.id,
        name: part.name,
        ...(part.signature === undefined ? {} : { signature: part.signature }),
      })
      for (const delta of pieces ?? [part.arguments]) {
        events.push({ type: 'tool-call-delta', index, argumentsDelta: delta })
      }
      events.push({ type: 'tool-call-end', index })
    }
  })
  events.push({
    type: 'finish',
    finishReason: response.finishReason,
    ...(response.stopSequence === undefined ? {} : { stopSequence: response.stopSequence }),
    ...(response.refusal === undefined ? {} : { refusal: response.refusal }),
    usage: response.usage,
  })
  return events
}
