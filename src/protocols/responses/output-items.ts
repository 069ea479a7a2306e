import type { ReasoningPart, ToolCallPart } from '../../canonical/types'
import { parseJson, isJsonObject } from '../../internal/json'
import type { ResponsesClientContext } from './request-decode'
import { mintReasoningBlob } from './reasoning-blob'
import { customToolArgument } from './tools-decode'

/** An `output_text` content part, with the arrays the AI SDK requires. */
export type ResponsesOutputText = {
  type: 'output_text'
  text: string
  annotations: []
  logprobs: []
}

export type ResponsesMessageItem = {
  id: string
  type: 'message'
  status: 'in_progress' | 'completed'
  role: 'assistant'
  content: ResponsesOutputText[]
}

export type ResponsesReasoningItem = {
  id: string
  type: 'reasoning'
  summary: Array<{ type: 'summary_text'; text: string }>
  encrypted_content?: string
}

export type ResponsesFunctionCallItem = {
  id: string
  type: 'function_call'
  status: 'in_progress' | 'completed'
  call_id: string
  name: string
  arguments: string
  namespace?: string
}

export type ResponsesCustomToolCallItem = {
  id: string
  type: 'custom_tool_call'
  status: 'in_progress' | 'completed'
  call_id: string
  name: string
  input: string
  namespace?: string
}

/** The output items the gateway writes for a Responses client. */
export type ResponsesOutputItem =
  | ResponsesMessageItem
  | ResponsesReasoningItem
  | ResponsesFunctionCallItem
  | ResponsesCustomToolCallItem

/**
 * The ids of one response and its items, minted once from the request id and reused everywhere
 * they appear: `resp_<id>`, and `<prefix>_<id>_<output index>` for items, so every
 * id is unique across responses, as `item_reference` needs.
 */
export function responsesIds(requestId: string) {
  const stem = requestId.replace(/[^a-zA-Z0-9]/g, '')
  return {
    response: `resp_${stem}`,
    item: (prefix: 'msg' | 'rs' | 'fc' | 'ctc', outputIndex: number) =>
      `${prefix}_${stem}_${outputIndex}`,
  }
}

/** An `output_text` part. */
export function outputText(text: string): ResponsesOutputText {
  return { type: 'output_text', text, annotations: [], logprobs: [] }
}

/** A finished message item. */
export function messageItem(id: string, text: string): ResponsesMessageItem {
  return {
    id,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [outputText(text)],
  }
}

/**
 * A finished reasoning item: the text as a summary when the client asked for
 * summaries; the gateway's blob as `encrypted_content` when it asked for that (or sent
 * `store: false`). `full` always includes the blob: it is what the response store keeps.
 */
export function reasoningItem(
  id: string,
  part: ReasoningPart,
  context: ResponsesClientContext,
  full = false,
): ResponsesReasoningItem {
  const item: ResponsesReasoningItem = {
    id,
    type: 'reasoning',
    summary:
      context.summaries && part.text !== '' ? [{ type: 'summary_text', text: part.text }] : [],
  }
  if (full || context.includeEncrypted) {
    const blob = mintReasoningBlob(part)
    if (blob !== undefined) item.encrypted_content = blob
  }
  return item
}

/**
 * A finished tool call item: a `custom_tool_call` with the raw input for a tool the
 * client declared `custom`, else a `function_call` (arguments `{}` when empty); tools from a
 * `namespace` carry it, under the client's own name.
 */
export function toolCallItem(
  ids: ReturnType<typeof responsesIds>,
  outputIndex: number,
  call: Pick<ToolCallPart, 'id' | 'name' | 'arguments'>,
  context: ResponsesClientContext,
): ResponsesFunctionCallItem | ResponsesCustomToolCallItem {
  const declared = context.names.namespaced.get(call.name)
  const naming = declared === undefined ? { name: call.name } : declared
  if (context.names.custom.has(call.name)) {
    return {
      id: ids.item('ctc', outputIndex),
      type: 'custom_tool_call',
      status: 'completed',
      call_id: call.id,
      ...naming,
      input: customToolInput(call.arguments),
    }
  }
  return {
    id: ids.item('fc', outputIndex),
    type: 'function_call',
    status: 'completed',
    call_id: call.id,
    ...naming,
    arguments: call.arguments.trim() === '' ? '{}' : call.arguments,
  }
}

/**
 * The raw input of a custom tool call, unwrapped from the one-argument function it was sent as
 * (`{"input": "…"}`); arguments that are not that shape are passed on as they came.
 */
export function customToolInput(args: string): string {
  const parsed = parseJson(args)
  if (parsed.ok && isJsonObject(parsed.value)) {
    const input = parsed.value[customToolArgument]
    if (typeof input === 'string') return input
  }
  return args
}
