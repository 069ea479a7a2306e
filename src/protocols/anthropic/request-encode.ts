import type {
  AssistantMessage,
  ChatRequest,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
} from '../../canonical/types'
import { isJsonObject, parseJson } from '../../internal/json'
import { anthropicToolId } from './tool-id'

type Block = Record<string, unknown>
type Turn = { role: 'user' | 'assistant'; content: Block[] }

/** Policies for requests going to Anthropic, documented in the README. */
export type AnthropicEncodeOptions = {
  /** `max_tokens` when the client set none: Anthropic requires one (GEN-01). */
  defaultMaxTokens: number
}

/** Thinking budgets for OpenAI's reasoning efforts (RSN-01; Anthropic's minimum is 1024). */
const budgetByEffort = {
  minimal: 1024,
  low: 1024,
  medium: 2048,
  high: 4096,
  xhigh: 8192,
  max: 16384,
} as const

/**
 * Canonical form → a messages request body.
 *
 * - All system text, wherever it stood, goes to the top-level `system` blocks in order (SYS-01,
 *   SYS-02: hoisted); empty text is dropped everywhere (SYS-08, CNT-03).
 * - Consecutive turns of one role merge, tool results first in a user turn (ROLE-01, TOOL-H-04).
 * - Thinking goes back only with an Anthropic signature (or redacted data), byte for byte; any
 *   other reasoning is dropped, never sent unsigned or with a forged signature (TOOL-H-10).
 * - Tool ids are made Anthropic-safe, identically on calls and results (TOOL-H-03); arguments
 *   that are not a JSON object become `{}` (TOOL-H-01).
 * - `temperature` is clamped to 0–1 (GEN-02); with thinking on, sampling parameters are dropped.
 * - A reasoning effort becomes a thinking budget, and `max_tokens` grows by it (GEN-01, RSN-01).
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export function encodeAnthropicRequest(
  request: ChatRequest,
  options: AnthropicEncodeOptions,
): Record<string, unknown> {
  const system: Block[] = []
  const turns: Turn[] = []
  for (const message of request.messages) {
    if (message.role === 'system') {
      for (const part of message.content) if (part.text !== '') system.push(textBlock(part))
      continue
    }
    const turn = encodeTurn(message)
    if (turn.content.length === 0) continue
    const previous = turns.at(-1)
    if (previous?.role === turn.role) {
      // Tool results must lead the merged user turn; the sort is stable, so order is kept.
      const rank = (block: Block) => (block['type'] === 'tool_result' ? 0 : 1)
      previous.content = [...previous.content, ...turn.content].sort(
        (left, right) => rank(left) - rank(right),
      )
    } else {
      turns.push(turn)
    }
  }
  trimTrailingAssistant(turns)
  const body: Record<string, unknown> = { model: request.model, messages: turns }
  if (system.length > 0) body['system'] = system
  let maxTokens = request.maxOutputTokens ?? options.defaultMaxTokens
  const thinking = thinkingFor(request.reasoning)
  if (thinking !== undefined) {
    body['thinking'] = thinking
    if (thinking.type === 'enabled') maxTokens += thinking.budget_tokens
  }
  body['max_tokens'] = maxTokens
  const thinkingOn = thinking?.type === 'enabled'
  if (!thinkingOn) {
    if (request.temperature !== undefined)
      body['temperature'] = Math.min(Math.max(request.temperature, 0), 1)
    if (request.topP !== undefined) body['top_p'] = request.topP
    if (request.topK !== undefined) body['top_k'] = request.topK
  }
  if (request.stopSequences !== undefined) body['stop_sequences'] = request.stopSequences
  if (request.user !== undefined) body['metadata'] = { user_id: request.user }
  if (request.tools !== undefined && request.tools.length > 0) {
    body['tools'] = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      input_schema: tool.inputSchema,
    }))
    const choice = request.toolChoice
    const mapped: Block | undefined =
      choice === undefined
        ? undefined
        : choice.type === 'tool'
          ? { type: 'tool', name: choice.name }
          : { type: choice.type === 'required' ? 'any' : choice.type }
    if (request.parallelToolCalls === false)
      body['tool_choice'] = { ...(mapped ?? { type: 'auto' }), disable_parallel_tool_use: true }
    else if (mapped !== undefined) body['tool_choice'] = mapped
  }
  if (request.stream) body['stream'] = true
  return body
}

function encodeTurn(message: Exclude<Message, { role: 'system' }>): Turn {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content.flatMap(userBlock) }
    case 'tool':
      return { role: 'user', content: message.content.map(toolResultBlock) }
    case 'assistant':
      return { role: 'assistant', content: assistantBlocks(message) }
    default: {
      const unknown: never = message
      throw new Error(`Unknown message ${JSON.stringify(unknown)}`)
    }
  }
}

function textBlock(part: TextPart): Block {
  return {
    type: 'text',
    text: part.text,
    ...(part.cacheControl === undefined ? {} : { cache_control: part.cacheControl }),
  }
}

function userBlock(part: TextPart | ImagePart | FilePart): Block[] {
  if (part.type === 'text') return part.text === '' ? [] : [textBlock(part)]
  if (part.type === 'image') return [imageBlock(part)]
  const source =
    part.source.kind === 'base64'
      ? { type: 'base64', media_type: part.mediaType, data: part.source.data }
      : part.source.kind === 'url'
        ? { type: 'url', url: part.source.url }
        : { type: 'text', media_type: 'text/plain', data: part.source.text }
  return [
    { type: 'document', source, ...(part.filename === undefined ? {} : { title: part.filename }) },
  ]
}

function imageBlock(part: ImagePart): Block {
  return {
    type: 'image',
    source:
      part.source.kind === 'base64'
        ? { type: 'base64', media_type: part.source.mediaType, data: part.source.data }
        : { type: 'url', url: part.source.url },
  }
}

function toolResultBlock(result: ToolResultPart): Block {
  const content = result.content.flatMap((part) =>
    part.type === 'text'
      ? part.text === ''
        ? []
        : [{ type: 'text', text: part.text }]
      : [imageBlock(part)],
  )
  return {
    type: 'tool_result',
    tool_use_id: anthropicToolId(result.toolCallId),
    content,
    ...(result.isError === true ? { is_error: true } : {}),
  }
}

function assistantBlocks(message: AssistantMessage): Block[] {
  const thinking: Block[] = []
  const rest: Block[] = []
  for (const part of message.content) {
    if (part.type === 'reasoning') {
      if (part.redacted?.protocol === 'anthropic')
        thinking.push({ type: 'redacted_thinking', data: part.redacted.value })
      else if (part.signature?.protocol === 'anthropic')
        thinking.push({ type: 'thinking', thinking: part.text, signature: part.signature.value })
    } else if (part.type === 'text') {
      if (part.text !== '') rest.push(textBlock(part))
    } else {
      rest.push({
        type: 'tool_use',
        id: anthropicToolId(part.id),
        name: part.name,
        input: toolInput(part.arguments),
      })
    }
  }
  // Thinking leads the turn, as Anthropic requires (TOOL-H-10).
  return [...thinking, ...rest]
}

function toolInput(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  const parsed = parseJson(text)
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
}

/** Anthropic rejects trailing whitespace in a final assistant (prefill) text (ROLE-04). */
function trimTrailingAssistant(turns: Turn[]): void {
  const last = turns.at(-1)
  if (last?.role !== 'assistant') return
  const block = last.content.at(-1)
  if (block?.['type'] === 'text' && typeof block['text'] === 'string')
    block['text'] = block['text'].trimEnd()
}

function thinkingFor(
  reasoning: ChatRequest['reasoning'],
): { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | undefined {
  if (reasoning === undefined) return undefined
  if (reasoning.effort === 'none') return { type: 'disabled' }
  if (reasoning.budgetTokens !== undefined)
    return { type: 'enabled', budget_tokens: Math.max(1024, reasoning.budgetTokens) }
  if (reasoning.effort !== undefined)
    return { type: 'enabled', budget_tokens: budgetByEffort[reasoning.effort] }
  return reasoning.enabled === true
    ? { type: 'enabled', budget_tokens: budgetByEffort.medium }
    : undefined
}
