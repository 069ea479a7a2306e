import type { ChatRequest, Message, ReasoningPart } from '../../canonical/types'
import { isJsonObject } from '../../internal/json'
import { decodeResponsesInput } from './input-decode'
import type { ResponsesInputItem, ResponsesRequest } from './request-schema'
import { decodeResponsesTools, type ResponsesToolNames } from './tools-decode'
import { decodeJsonSchemaFormat } from '../openai/json-schema-format'

/** The fields of a Response object that echo the request (RESP-RES-01). */
export type ResponsesEcho = {
  instructions: string | null
  max_output_tokens: number | null
  metadata: Record<string, string>
  parallel_tool_calls: boolean
  previous_response_id: string | null
  prompt_cache_key: string | null
  reasoning: { effort: string | null; summary: string | null }
  store: boolean
  temperature: number
  text: { format: Record<string, unknown> }
  tool_choice: unknown
  tools: unknown[]
  top_p: number
  truncation: string
}

/** What answering a Responses client needs to know of its request, besides the canonical form. */
export type ResponsesClientContext = {
  names: ResponsesToolNames
  /** Reasoning items carry `encrypted_content` (asked for with `include`, or implied by `store: false`). */
  includeEncrypted: boolean
  /** Reasoning items carry their text as a summary (`reasoning.summary` was set). */
  summaries: boolean
  echo: ResponsesEcho
}

/** A Responses request decoded for a translated upstream. */
export type DecodedResponsesRequest = {
  request: ChatRequest
  context: ResponsesClientContext
  /** Built-in tools dropped because no translated upstream serves them (RESP-TOOL-04). */
  droppedTools: string[]
}

const efforts = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'])

/**
 * A Responses request → canonical form, for an upstream that does not speak Responses.
 *
 * - `instructions` lead as a system message (RESP-REQ-01); `input` as `decodeResponsesInput`
 *   reads it, from `items` (the input with `previous_response_id` and `item_reference`s already
 *   resolved).
 * - Tools as `decodeResponsesTools` maps them; `parallel_tool_calls`, `max_output_tokens`,
 *   `temperature`, `top_p` carried; `reasoning.effort` as the canonical effort (RESP-RSN-01);
 *   `text.format` `json_schema` / `json_object` as the response format (RESP-FMT-01);
 *   `safety_identifier` (or the older `user`) as the end-user id.
 * - `prompt_cache_key` marks the last system text and the last user text as cache breakpoints,
 *   which Anthropic honours and the others ignore: Codex resends the whole history every turn
 *   (RESP-MISC-01).
 * - `store`, `include`, `metadata`, `truncation`, `service_tier` and the like are the gateway's
 *   business or have no counterpart upstream; they shape the answer, not the upstream request.
 */
export function decodeResponsesRequest(
  body: ResponsesRequest,
  items: string | readonly ResponsesInputItem[] | undefined,
  storedReasoning?: ReadonlyMap<string, ReasoningPart>,
): DecodedResponsesRequest {
  const tools = decodeResponsesTools(body.tools, body.tool_choice)
  const messages: Message[] = []
  if (typeof body.instructions === 'string' && body.instructions !== '')
    messages.push({ role: 'system', content: [{ type: 'text', text: body.instructions }] })
  messages.push(
    ...decodeResponsesInput(items, {
      names: tools.names,
      ...(storedReasoning === undefined ? {} : { storedReasoning }),
    }),
  )
  if (typeof body.prompt_cache_key === 'string') markCacheBreakpoints(messages)
  const request: ChatRequest = { model: body.model, messages, stream: body.stream === true }
  if (tools.tools.length > 0) request.tools = tools.tools
  if (tools.toolChoice !== undefined) request.toolChoice = tools.toolChoice
  if (body.parallel_tool_calls === false) request.parallelToolCalls = false
  if (typeof body.max_output_tokens === 'number') request.maxOutputTokens = body.max_output_tokens
  if (typeof body.temperature === 'number') request.temperature = body.temperature
  if (typeof body.top_p === 'number') request.topP = body.top_p
  const user = body.safety_identifier ?? body.user
  if (typeof user === 'string') request.user = user
  const effort = body.reasoning?.effort
  if (typeof effort === 'string' && efforts.has(effort))
    request.reasoning = { effort: effort as NonNullable<ChatRequest['reasoning']>['effort'] }
  const format = body.text?.format
  if (isJsonObject(format) && format['type'] === 'json_object')
    request.responseFormat = { type: 'json' }
  if (isJsonObject(format) && format['type'] === 'json_schema')
    request.responseFormat = decodeJsonSchemaFormat(format)
  return {
    request,
    context: {
      names: tools.names,
      includeEncrypted:
        body.store === false || (body.include ?? []).includes('reasoning.encrypted_content'),
      summaries: typeof body.reasoning?.summary === 'string',
      echo: responsesEcho(body),
    },
    droppedTools: tools.dropped,
  }
}

/** The request fields a Response object echoes, with the API's defaults where the client sent none. */
export function responsesEcho(body: ResponsesRequest): ResponsesEcho {
  return {
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: isJsonObject(body.text?.format) ? body.text.format : { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: typeof body['truncation'] === 'string' ? body['truncation'] : 'disabled',
  }
}

const ephemeral = { type: 'ephemeral' }

function markCacheBreakpoints(messages: Message[]): void {
  const system = messages.filter((message) => message.role === 'system')
  const lastSystem = system.at(-1)?.content.at(-1)
  if (lastSystem !== undefined) lastSystem.cacheControl = ephemeral
  const lastUser = messages.findLast((message) => message.role === 'user')
  const lastText = lastUser?.content.findLast((part) => part.type === 'text')
  if (lastText !== undefined) lastText.cacheControl = ephemeral
}
