import type { StreamEncoder } from '../../canonical/stream-codec'
import type { FinishReason, Signed, StreamEvent, Usage } from '../../canonical/types'
import { emptyUsage, mergeUsage } from '../../canonical/usage'
import { GatewayError } from '../../errors'
import { canonicalUsageToResponses } from './canonical-usage'
import { responsesErrorObject, responsesFailure } from './errors'
import { canonicalFinishToResponses } from './finish-reason'
import {
  messageItem,
  outputText,
  reasoningItem,
  responsesIds,
  toolCallItem,
  type ResponsesOutputItem,
} from './output-items'
import type { ResponsesClientContext } from './request-decode'
import { responsesObject, type ResponsesObject } from './response-object'

/** Options of the Responses stream encoder. */
export type ResponsesStreamEncoderOptions = {
  requestId: string
  /** The call name the client sent. */
  model: string
  /** Unix seconds. */
  created: number
  context: ResponsesClientContext
  /** Receives the finished Response, every reasoning blob included, when the stream completes. */
  onComplete?: (response: ResponsesObject) => void
}

/** The item being written: blocks never interleave, so there is at most one. */
type OpenItem =
  | { kind: 'message'; index: number; id: string; text: string }
  | {
      kind: 'reasoning'
      index: number
      id: string
      text: string
      redacted?: Signed
      summary: boolean
    }
  | {
      kind: 'call'
      index: number
      id: string
      callId: string
      name: string
      args: string
      custom: boolean
    }

/**
 * Canonical stream events → Responses SSE, as the strictest consumer expects (the `openai` SDK's
 * `responses.stream()` helper, v6.45+ and v7):
 *
 * - frames are `event: <type>` + `data: {"type", "sequence_number", …}`; `sequence_number` counts
 *   0, 1, 2… across the whole stream; no `[DONE]`;
 * - `response.created` then `response.in_progress` come first, with the request's echo, status
 *   `in_progress`, no output and no usage;
 * - each canonical block is one output item, written from `output_item.added` (a complete
 *   skeleton: message `content: []`, reasoning `summary: []`, calls with `call_id`, `arguments: ""`
 *   or `input: ""`) through its deltas and `…done` events to `output_item.done` with the full item
 *   and its status; `output_index` counts items densely, ids are minted once (`responsesIds`);
 * - text: `content_part.added`, `output_text.delta`s (never empty), `output_text.done`,
 *   `content_part.done`;
 * - reasoning: summary events only when the client asked for summaries; the gateway's blob goes
 *   in the done item (an Anthropic signature is only known at the block's end);
 * - function calls: `function_call_arguments.delta`s and `.done` (`{}` for no arguments); a call
 *   of a tool the client declared `custom` is a `custom_tool_call` whose input is unwrapped from
 *   the JSON the upstream streamed, so it is buffered and sent whole at the end;
 * - exactly one terminal: `response.completed` (or `response.incomplete` with
 *   `incomplete_details`, or `response.failed` for an upstream error finish) holding every item
 *   and the full usage;
 * - an `error` event (also a broken upstream) is written as `error` — with the error both flat, as
 *   the SDK types have it, and nested, as OpenAI sends it — then `response.failed`; so is an end
 *   without a finish; nothing follows.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function createResponsesStreamEncoder(
  options: ResponsesStreamEncoderOptions,
): StreamEncoder {
  const { context } = options
  const ids = responsesIds(options.requestId)
  const identity = {
    id: ids.response,
    createdAt: options.created,
    model: options.model,
    echo: context.echo,
  }
  let sequence = 0
  let state: 'idle' | 'streaming' | 'done' = 'idle'
  let open: OpenItem | undefined
  const output: ResponsesOutputItem[] = []
  /** The same items with every reasoning blob, for the response store. */
  const stored: ResponsesOutputItem[] = []
  let usage: Usage = emptyUsage()

  const frame = (type: string, payload: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`

  const begin = (frames: string[]) => {
    if (state !== 'idle') return
    state = 'streaming'
    const skeleton = responsesObject(identity, { status: 'in_progress', output: [], usage: null })
    frames.push(frame('response.created', { response: skeleton }))
    frames.push(frame('response.in_progress', { response: skeleton }))
  }

  const add = (frames: string[], item: Record<string, unknown>) =>
    frames.push(frame('response.output_item.added', { output_index: output.length, item }))

  const finishItem = (frames: string[], item: ResponsesOutputItem, full: ResponsesOutputItem) => {
    frames.push(frame('response.output_item.done', { output_index: output.length, item }))
    output.push(item)
    stored.push(full)
  }

  const openMessage = (frames: string[]) => {
    const id = ids.item('msg', output.length)
    open = { kind: 'message', index: output.length, id, text: '' }
    add(frames, { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] })
    frames.push(
      frame('response.content_part.added', {
        item_id: id,
        output_index: output.length,
        content_index: 0,
        part: outputText(''),
      }),
    )
  }

  const closeOpen = (frames: string[], signature?: Signed) => {
    const item = open
    open = undefined
    if (item === undefined) return
    const where = { item_id: item.id, output_index: item.index }
    switch (item.kind) {
      case 'message': {
        frames.push(
          frame('response.output_text.done', {
            ...where,
            content_index: 0,
            text: item.text,
            logprobs: [],
          }),
          frame('response.content_part.done', {
            ...where,
            content_index: 0,
            part: outputText(item.text),
          }),
        )
        const done = messageItem(item.id, item.text)
        finishItem(frames, done, done)
        return
      }
      case 'reasoning': {
        if (item.summary) {
          const part = { type: 'summary_text', text: item.text }
          frames.push(
            frame('response.reasoning_summary_text.done', {
              ...where,
              summary_index: 0,
              text: item.text,
            }),
            frame('response.reasoning_summary_part.done', { ...where, summary_index: 0, part }),
          )
        }
        const part = {
          type: 'reasoning' as const,
          text: item.text,
          ...(signature === undefined ? {} : { signature }),
          ...(item.redacted === undefined ? {} : { redacted: item.redacted }),
        }
        finishItem(
          frames,
          reasoningItem(item.id, part, context),
          reasoningItem(item.id, part, context, true),
        )
        return
      }
      case 'call': {
        const done = toolCallItem(
          ids,
          item.index,
          { id: item.callId, name: item.name, arguments: item.args },
          context,
        )
        if (done.type === 'custom_tool_call') {
          if (done.input !== '')
            frames.push(
              frame('response.custom_tool_call_input.delta', { ...where, delta: done.input }),
            )
          frames.push(
            frame('response.custom_tool_call_input.done', { ...where, input: done.input }),
          )
        } else {
          if (item.args.trim() === '')
            frames.push(frame('response.function_call_arguments.delta', { ...where, delta: '{}' }))
          frames.push(
            frame('response.function_call_arguments.done', {
              ...where,
              name: done.name,
              arguments: done.arguments,
            }),
          )
        }
        finishItem(frames, done, done)
        return
      }
      default: {
        const unknown: never = item
        throw new Error(`Unknown item ${JSON.stringify(unknown)}`)
      }
    }
  }

  const terminal = (frames: string[], finish: { finishReason: FinishReason; refusal?: string }) => {
    closeOpen(frames)
    if (finish.refusal !== undefined && finish.refusal !== '') {
      openMessage(frames)
      const item = open as Extract<OpenItem, { kind: 'message' }>
      item.text = finish.refusal
      frames.push(
        frame('response.output_text.delta', {
          item_id: item.id,
          output_index: item.index,
          content_index: 0,
          delta: item.text,
          logprobs: [],
        }),
      )
      closeOpen(frames)
    }
    const outcome = canonicalFinishToResponses(finish.finishReason)
    const ending = {
      status: outcome.status,
      incomplete_details: outcome.incomplete_details,
      ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
      usage: canonicalUsageToResponses(usage),
    }
    const response = responsesObject(identity, { ...ending, output })
    frames.push(frame(`response.${outcome.status}`, { response }))
    if (outcome.status !== 'failed')
      options.onComplete?.(responsesObject(identity, { ...ending, output: stored }))
  }

  const fail = (frames: string[], error: GatewayError) => {
    begin(frames)
    // A half-written item is not part of the answer: only finished items are reported.
    open = undefined
    const object = responsesErrorObject(error)
    frames.push(
      frame('error', {
        code: object.code,
        message: object.message,
        param: object.param,
        error: object,
      }),
    )
    const response = responsesObject(identity, {
      status: 'failed',
      error: responsesFailure(error),
      output,
      usage:
        usage.input.total === undefined && usage.output.total === undefined
          ? null
          : canonicalUsageToResponses(usage),
    })
    frames.push(frame('response.failed', { response }))
  }

  return {
    push(event: StreamEvent): string[] {
      if (state === 'done') return []
      const frames: string[] = []
      switch (event.type) {
        case 'message-start':
          begin(frames)
          if (event.usage !== undefined) usage = mergeUsage(usage, event.usage)
          break
        case 'text-start':
          begin(frames)
          closeOpen(frames)
          openMessage(frames)
          break
        case 'text-delta':
          if (event.delta === '' || open?.kind !== 'message') break
          open.text += event.delta
          frames.push(
            frame('response.output_text.delta', {
              item_id: open.id,
              output_index: open.index,
              content_index: 0,
              delta: event.delta,
              logprobs: [],
            }),
          )
          break
        case 'reasoning-start': {
          begin(frames)
          closeOpen(frames)
          const id = ids.item('rs', output.length)
          open = {
            kind: 'reasoning',
            index: output.length,
            id,
            text: '',
            summary: false,
            ...(event.redacted === undefined ? {} : { redacted: event.redacted }),
          }
          add(frames, { id, type: 'reasoning', summary: [] })
          break
        }
        case 'reasoning-delta': {
          if (event.delta === '' || open?.kind !== 'reasoning') break
          open.text += event.delta
          if (!context.summaries) break
          const where = { item_id: open.id, output_index: open.index, summary_index: 0 }
          if (!open.summary) {
            open.summary = true
            frames.push(
              frame('response.reasoning_summary_part.added', {
                ...where,
                part: { type: 'summary_text', text: '' },
              }),
            )
          }
          frames.push(
            frame('response.reasoning_summary_text.delta', { ...where, delta: event.delta }),
          )
          break
        }
        case 'reasoning-end':
          if (open?.kind === 'reasoning') closeOpen(frames, event.signature)
          break
        case 'tool-call-start': {
          begin(frames)
          closeOpen(frames)
          const custom = context.names.custom.has(event.name)
          const declared = context.names.namespaced.get(event.name) ?? { name: event.name }
          const id = ids.item(custom ? 'ctc' : 'fc', output.length)
          open = {
            kind: 'call',
            index: output.length,
            id,
            callId: event.id,
            name: event.name,
            args: '',
            custom,
          }
          add(
            frames,
            custom
              ? {
                  id,
                  type: 'custom_tool_call',
                  status: 'in_progress',
                  call_id: event.id,
                  ...declared,
                  input: '',
                }
              : {
                  id,
                  type: 'function_call',
                  status: 'in_progress',
                  call_id: event.id,
                  ...declared,
                  arguments: '',
                },
          )
          break
        }
        case 'tool-call-delta':
          if (event.argumentsDelta === '' || open?.kind !== 'call') break
          open.args += event.argumentsDelta
          if (!open.custom) {
            frames.push(
              frame('response.function_call_arguments.delta', {
                item_id: open.id,
                output_index: open.index,
                delta: event.argumentsDelta,
              }),
            )
          }
          break
        case 'text-end':
        case 'tool-call-end':
          closeOpen(frames)
          break
        case 'usage':
          usage = mergeUsage(usage, event.usage)
          break
        case 'finish':
          begin(frames)
          usage = mergeUsage(usage, event.usage)
          terminal(frames, event)
          state = 'done'
          break
        case 'error':
          fail(frames, event.error)
          state = 'done'
          break
        default: {
          const unknown: never = event
          throw new Error(`Unknown stream event ${JSON.stringify(unknown)}`)
        }
      }
      return frames
    },

    end(): string[] {
      if (state === 'done') return []
      const frames: string[] = []
      // Decoders end with `finish` or `error`; without either the answer may be cut short.
      fail(
        frames,
        new GatewayError('upstream_error', 'The stream ended before the answer finished.'),
      )
      state = 'done'
      return frames
    },

    // Only after `response.created`: the SDK's helper throws on a keepalive before it.
    keepalive(): string[] {
      return state === 'streaming' ? [frame('keepalive', {})] : []
    },
  }
}
