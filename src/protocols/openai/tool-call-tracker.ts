import type { StreamEvent } from '../../canonical/types'
import { isJsonObject } from '../../internal/json'

/** Options of the tool-call tracker. */
export type ToolCallTrackerOptions = {
  /** Makes an id for a call that arrives without one (or with one an earlier call used). */
  generateId: () => string
  /** Hands out the next canonical block index; called when a call's start is emitted. */
  nextBlockIndex: () => number
}

/**
 * Assembles the `delta.tool_calls` entries of an OpenAI or OpenAI-compatible stream into
 * canonical tool-call blocks.
 */
export type ToolCallTracker = {
  /** Reads one `delta.tool_calls` entry; returns the events that are due now. */
  push(entry: unknown): StreamEvent[]
  /** Ends every call in progress (the stream moved on to another block, or finished). */
  close(): StreamEvent[]
  /** Whether the stream has carried any tool call. */
  readonly sawToolCall: boolean
}

type TrackedCall = {
  /** The upstream's id, when it sent a non-blank one. */
  wireId: string | undefined
  /** The id consumers see: the upstream's, or a generated one. */
  id: string
  name: string
  arguments: string
  /** The canonical block index, once the call's start has been emitted. */
  blockIndex: number | undefined
  closed: boolean
}

/**
 * Tracks streamed tool calls.
 *
 * Attribution of a fragment to a call, most specific evidence first:
 * - a non-blank `id` finds the call with that id at the same `index`, or (for servers that omit
 *   `index` but repeat `id` on every fragment) the latest call with that id; a named entry whose
 *   id was seen at another index is a new call, since some servers reuse one id;
 * - without an id, a non-blank `function.name` marks a new call, because only a call's first
 *   delta carries the name, and some servers number every parallel call `0`;
 * - otherwise the call at `index`, else the latest call (servers that omit both).
 *
 * Canonical blocks never interleave, but some OpenAI-compatible servers interleave the fragments
 * of parallel calls. The simplest order that is always correct: the first call of a run streams
 * live, and later calls of the same run are held whole until the run closes, then each is emitted
 * as start, one delta, end. A fragment for the live call can arrive at any time and is emitted
 * at once, since its block is the open one. OpenAI itself sends calls one after another, so this
 * only delays the arguments of the second and later calls, which no client acts on before the
 * stream finishes anyway.
 *
 * A call is never ended because its arguments parse as JSON: a parsable prefix can still grow
 * (vercel/ai #13137); it ends when the run closes. A call whose arguments stayed empty gets `{}`
 * before its end, so consumers never see empty arguments (vercel/ai #6687).
 *
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
export function createToolCallTracker(options: ToolCallTrackerOptions): ToolCallTracker {
  const calls: TrackedCall[] = []
  const byIndex = new Map<number, TrackedCall>()
  const usedIds = new Set<string>()
  /** The calls of the run in progress; the first one streams live. */
  let run: TrackedCall[] = []

  const find = (
    wireId: string | undefined,
    index: number | undefined,
    name: string | undefined,
  ): TrackedCall | undefined => {
    const atIndex = index === undefined ? undefined : byIndex.get(index)
    if (wireId !== undefined) {
      if (atIndex?.wireId === wireId) return atIndex
      if (index !== undefined && name !== undefined) return undefined
      return calls.findLast((call) => call.wireId === wireId)
    }
    if (name !== undefined) return undefined
    return atIndex ?? calls.at(-1)
  }

  const create = (wireId: string | undefined, name: string | undefined): TrackedCall => {
    // Tool results point back at call ids, so two calls must never share one.
    const id = wireId !== undefined && !usedIds.has(wireId) ? wireId : uniqueId()
    usedIds.add(id)
    const call: TrackedCall = {
      wireId,
      id,
      name: name ?? '',
      arguments: '',
      blockIndex: undefined,
      closed: false,
    }
    calls.push(call)
    run.push(call)
    return call
  }

  /** A generated id no call has used; a suffix keeps a repetitive generator from looping. */
  const uniqueId = (): string => {
    const generated = options.generateId()
    let id = generated
    for (let suffix = 2; usedIds.has(id); suffix += 1) id = `${generated}-${suffix}`
    return id
  }

  /** Emits a call's start and gives the call its block index. */
  const begin = (call: TrackedCall, events: StreamEvent[]): number => {
    const index = options.nextBlockIndex()
    call.blockIndex = index
    events.push({ type: 'tool-call-start', index, id: call.id, name: call.name })
    return index
  }

  return {
    push(entry) {
      if (!isJsonObject(entry)) return []
      const fn = isJsonObject(entry['function']) ? entry['function'] : {}
      const wireId = nonBlank(entry['id'])
      const name = nonBlank(fn['name'])
      const index = Number.isInteger(entry['index']) ? (entry['index'] as number) : undefined
      const fragment = argumentsText(fn['arguments'])

      const found = find(wireId, index, name)
      // A fragment for a call that has ended cannot be added without reopening a closed block.
      if (found?.closed === true) return []
      const call = found ?? create(wireId, name)
      if (index !== undefined) byIndex.set(index, call)
      call.arguments += fragment

      if (call !== run[0]) return []
      const events: StreamEvent[] = []
      const blockIndex = call.blockIndex ?? begin(call, events)
      if (fragment !== '') {
        events.push({ type: 'tool-call-delta', index: blockIndex, argumentsDelta: fragment })
      }
      return events
    },

    close() {
      const events: StreamEvent[] = []
      for (const call of run) {
        const empty = call.arguments.trim() === ''
        let index = call.blockIndex
        if (index === undefined) {
          index = begin(call, events)
          if (!empty)
            events.push({ type: 'tool-call-delta', index, argumentsDelta: call.arguments })
        }
        if (empty) events.push({ type: 'tool-call-delta', index, argumentsDelta: '{}' })
        events.push({ type: 'tool-call-end', index })
        call.closed = true
      }
      run = []
      return events
    },

    get sawToolCall() {
      return calls.length > 0
    },
  }
}

function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined
}

/** Arguments are JSON text; a few servers send the object itself, which is re-serialised. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value
  return isJsonObject(value) ? JSON.stringify(value) : ''
}
