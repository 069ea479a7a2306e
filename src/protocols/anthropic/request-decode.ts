import type {
  AssistantMessage,
  ChatRequest,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolChoice,
  ToolResultPart,
} from '../../canonical/types'
import { isJsonObject, stringOf } from '../../internal/json'
import type { AnthropicMessagesRequest } from './request-schema'
import { readThinkingBlock } from './thinking-signature'

type Block = Record<string, unknown> & { type: string }

/**
 * A messages request → canonical form.
 *
 * - `system` (string or text blocks) and any `system` messages inside `messages` become system
 *   messages, in order (SYS-03, gateway-landscape §E.9).
 * - A user turn's `tool_result` blocks become one tool message placed before the turn's other
 *   content; each result's tool name is recovered from the earlier `tool_use` (TOOL-H-05).
 * - `thinking` keeps its signature tagged as Anthropic's; `redacted_thinking` keeps its data.
 * - Server tools (those with a `type` other than `custom`) have no counterpart elsewhere and are
 *   dropped (docs/translation.md › Caveats).
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export function decodeAnthropicRequest(body: AnthropicMessagesRequest): ChatRequest {
  const messages: Message[] = []
  const system = systemParts(body.system)
  if (system.length > 0) messages.push({ role: 'system', content: system })
  const toolNames = new Map<string, string>()
  body.messages.forEach((message, index) => {
    const blocks: Block[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content as Block[])
    if (message.role === 'system') {
      messages.push({ role: 'system', content: blocks.flatMap(textOf) })
    } else if (message.role === 'assistant') {
      messages.push(decodeAssistant(blocks, toolNames, `messages[${index}].content`))
    } else {
      const results = blocks
        .filter((block) => block.type === 'tool_result')
        .map((block) => decodeToolResult(block, toolNames))
      if (results.length > 0) messages.push({ role: 'tool', content: results })
      const content = blocks
        .filter((block) => block.type !== 'tool_result')
        .flatMap(decodeUserBlock)
      if (content.length > 0) messages.push({ role: 'user', content })
    }
  })
  const request: ChatRequest = {
    model: body.model,
    messages,
    maxOutputTokens: body.max_tokens,
    stream: body.stream === true,
  }
  const tools = (body.tools ?? []).filter(
    (tool) => tool['type'] === undefined || tool['type'] === 'custom',
  )
  if (tools.length > 0) {
    request.tools = tools.map((tool) => ({
      name: tool.name,
      ...(typeof tool['description'] === 'string' ? { description: tool['description'] } : {}),
      inputSchema: isJsonObject(tool['input_schema'])
        ? tool['input_schema']
        : { type: 'object', properties: {} },
    }))
  }
  if (body.tool_choice !== undefined) {
    const choice = body.tool_choice
    const mapped: Record<string, ToolChoice> = {
      auto: { type: 'auto' },
      any: { type: 'required' },
      none: { type: 'none' },
    }
    request.toolChoice =
      choice.type === 'tool' ? { type: 'tool', name: choice.name ?? '' } : mapped[choice.type]!
    if (choice['disable_parallel_tool_use'] === true) request.parallelToolCalls = false
  }
  if (body.temperature !== undefined) request.temperature = body.temperature
  if (body.top_p !== undefined) request.topP = body.top_p
  if (body.top_k !== undefined) request.topK = body.top_k
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0)
    request.stopSequences = body.stop_sequences
  if (typeof body.metadata?.user_id === 'string') request.user = body.metadata.user_id
  const effort = outputEffort(body['output_config'])
  if (body.thinking !== undefined) {
    if (body.thinking.type === 'disabled') request.reasoning = { effort: 'none' }
    else if (body.thinking.type === 'enabled')
      request.reasoning = { enabled: true, budgetTokens: body.thinking.budget_tokens }
    else request.reasoning = { enabled: true, ...(effort === undefined ? {} : { effort }) }
  } else if (effort !== undefined) {
    request.reasoning = { effort }
  }
  const format = outputFormat(body)
  if (format !== undefined) request.responseFormat = format
  return request
}

/**
 * `output_config.format` (or the beta's `output_format`) → a JSON answer with its schema:
 * `@ai-sdk/anthropic` and the SDK's `messages.parse` send it for Claude model names,
 * whichever group serves them.
 */
function outputFormat(body: AnthropicMessagesRequest): ChatRequest['responseFormat'] {
  const config = body['output_config']
  const format = isJsonObject(config) ? config['format'] : body['output_format']
  if (!isJsonObject(format) || format['type'] !== 'json_schema' || !isJsonObject(format['schema']))
    return undefined
  return { type: 'json', schema: format['schema'] }
}

function systemParts(system: AnthropicMessagesRequest['system']): TextPart[] {
  if (system === undefined) return []
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }]
  return system.flatMap(textOf)
}

function textOf(block: Block): TextPart[] {
  if (block.type !== 'text' || typeof block['text'] !== 'string' || block['text'] === '') return []
  return [
    {
      type: 'text',
      text: block['text'],
      ...(block['cache_control'] === undefined ? {} : { cacheControl: block['cache_control'] }),
    },
  ]
}

function decodeAssistant(
  blocks: Block[],
  toolNames: Map<string, string>,
  path: string,
): AssistantMessage {
  const content: AssistantMessage['content'] = []
  blocks.forEach((block, index) => {
    if (block.type === 'text') content.push(...textOf(block))
    else if (block.type === 'thinking') {
      // The gateway's own tag marks reasoning that Anthropic never signed, and may carry the
      // origin of an OpenAI-compatible upstream's reasoning.
      const signature = typeof block['signature'] === 'string' ? block['signature'] : ''
      content.push(
        readThinkingBlock(stringOf(block['thinking']), signature, `${path}[${index}].signature`),
      )
    } else if (block.type === 'redacted_thinking') {
      content.push({
        type: 'reasoning',
        text: '',
        redacted: { protocol: 'anthropic', value: stringOf(block['data']) },
      })
    } else if (block.type === 'tool_use') {
      const id = stringOf(block['id'])
      const name = stringOf(block['name'])
      toolNames.set(id, name)
      content.push({ type: 'tool-call', id, name, arguments: JSON.stringify(block['input'] ?? {}) })
    }
  })
  return { role: 'assistant', content }
}

function decodeUserBlock(block: Block): Array<TextPart | ImagePart | FilePart> {
  if (block.type === 'text') return textOf(block)
  if (block.type === 'image') {
    const image = decodeImage(block)
    return image === undefined ? [] : [image]
  }
  if (block.type === 'document' && isJsonObject(block['source'])) {
    const source = block['source']
    const filename = typeof block['title'] === 'string' ? { filename: block['title'] } : {}
    if (source['type'] === 'base64') {
      return [
        {
          type: 'file',
          mediaType: stringOf(source['media_type']),
          source: { kind: 'base64', data: stringOf(source['data']) },
          ...filename,
        },
      ]
    }
    if (source['type'] === 'url') {
      return [
        {
          type: 'file',
          mediaType: 'application/pdf',
          source: { kind: 'url', url: stringOf(source['url']) },
          ...filename,
        },
      ]
    }
    if (source['type'] === 'text') {
      return [
        {
          type: 'file',
          mediaType: 'text/plain',
          source: { kind: 'text', text: stringOf(source['data']) },
          ...filename,
        },
      ]
    }
  }
  return []
}

function decodeImage(block: Block): ImagePart | undefined {
  const source = block['source']
  if (!isJsonObject(source)) return undefined
  if (source['type'] === 'base64') {
    return {
      type: 'image',
      source: {
        kind: 'base64',
        mediaType: stringOf(source['media_type']),
        data: stringOf(source['data']),
      },
    }
  }
  if (source['type'] === 'url')
    return { type: 'image', source: { kind: 'url', url: stringOf(source['url']) } }
  return undefined
}

function decodeToolResult(block: Block, toolNames: Map<string, string>): ToolResultPart {
  const id = stringOf(block['tool_use_id'])
  const raw = block['content']
  const content: Array<TextPart | ImagePart> = []
  if (typeof raw === 'string') content.push({ type: 'text', text: raw })
  else if (Array.isArray(raw)) {
    for (const part of raw) {
      if (!isJsonObject(part)) continue
      if (part['type'] === 'text' && typeof part['text'] === 'string')
        content.push({ type: 'text', text: part['text'] })
      else if (part['type'] === 'image') {
        const image = decodeImage(part as Block)
        if (image !== undefined) content.push(image)
      }
    }
  }
  return {
    type: 'tool-result',
    toolCallId: id,
    toolName: toolNames.get(id) ?? '',
    content,
    ...(block['is_error'] === true ? { isError: true } : {}),
  }
}

/** `output_config.effort`, when it is one Anthropic defines. */
function outputEffort(outputConfig: unknown): NonNullable<ChatRequest['reasoning']>['effort'] {
  const effort = isJsonObject(outputConfig) ? outputConfig['effort'] : undefined
  return effort === 'low' ||
    effort === 'medium' ||
    effort === 'high' ||
    effort === 'xhigh' ||
    effort === 'max'
    ? effort
    : undefined
}
