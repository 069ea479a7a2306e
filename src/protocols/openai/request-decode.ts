import type { ChatRequest, FilePart, ImagePart, Message, TextPart } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject, stringOf } from '../../internal/json'
import type { OpenAIChatRequest } from './request-schema'
import { decodeJsonSchemaFormat } from './json-schema-format'

const dataUrl = /^data:([^;,]+);base64,(.*)$/s

/**
 * A chat-completions request → canonical form.
 *
 * - `system` and `developer` messages become system messages; a legacy `function`
 *   message is a tool result keyed by name.
 * - `image_url` data URLs become base64 images, other URLs stay URLs (CNT-02); `file` parts become
 *   documents; audio has no counterpart and is refused with 400 (CNT-05).
 * - A tool message's tool name is recovered from the earlier assistant `tool_calls`.
 * - `max_completion_tokens` wins over `max_tokens` (GEN-01).
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export function decodeOpenAIRequest(body: OpenAIChatRequest): ChatRequest {
  const toolNames = new Map<string, string>()
  const messages: Message[] = body.messages.map((message, index) => {
    const raw = message as Record<string, unknown>
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textParts(message.content) }
      case 'user':
        return { role: 'user', content: userParts(message.content, index) }
      case 'assistant': {
        const content: Extract<Message, { role: 'assistant' }>['content'] = []
        const reasoning = raw['reasoning_content'] ?? raw['reasoning']
        if (typeof reasoning === 'string' && reasoning !== '')
          content.push({ type: 'reasoning', text: reasoning })
        content.push(...textParts(message.content ?? ''))
        for (const call of Array.isArray(raw['tool_calls']) ? raw['tool_calls'] : []) {
          if (!isJsonObject(call) || !isJsonObject(call['function'])) continue
          const id = stringOf(call['id'])
          const name = stringOf(call['function']['name'])
          toolNames.set(id, name)
          const args = call['function']['arguments']
          content.push({
            type: 'tool-call',
            id,
            name,
            arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
          })
        }
        return { role: 'assistant', content }
      }
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.tool_call_id,
              toolName: toolNames.get(message.tool_call_id) ?? '',
              content: textParts(message.content),
            },
          ],
        }
      case 'function':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.name,
              toolName: message.name,
              content: textParts(message.content ?? ''),
            },
          ],
        }
      default: {
        const unknown: never = message
        throw new Error(`Unknown role ${JSON.stringify(unknown)}`)
      }
    }
  })
  const request: ChatRequest = { model: body.model, messages, stream: body.stream === true }
  const raw = body as Record<string, unknown>
  if (Array.isArray(raw['tools'])) {
    request.tools = raw['tools'].filter(isJsonObject).flatMap((tool) => {
      const fn = tool['function']
      if (!isJsonObject(fn) || typeof fn['name'] !== 'string') return []
      return [
        {
          name: fn['name'],
          ...(typeof fn['description'] === 'string' ? { description: fn['description'] } : {}),
          inputSchema: isJsonObject(fn['parameters'])
            ? fn['parameters']
            : { type: 'object', properties: {} },
        },
      ]
    })
  }
  const choice = raw['tool_choice']
  if (choice === 'auto' || choice === 'none' || choice === 'required')
    request.toolChoice = { type: choice }
  else if (
    isJsonObject(choice) &&
    isJsonObject(choice['function']) &&
    typeof choice['function']['name'] === 'string'
  ) {
    request.toolChoice = { type: 'tool', name: choice['function']['name'] }
  }
  if (raw['parallel_tool_calls'] === false) request.parallelToolCalls = false
  const maxTokens = body.max_completion_tokens ?? body.max_tokens
  if (maxTokens !== undefined && maxTokens !== null) request.maxOutputTokens = maxTokens
  if (typeof body.temperature === 'number') request.temperature = body.temperature
  if (typeof raw['top_p'] === 'number') request.topP = raw['top_p']
  if (typeof raw['seed'] === 'number') request.seed = raw['seed']
  const stop = raw['stop']
  if (typeof stop === 'string') request.stopSequences = [stop]
  else if (Array.isArray(stop) && stop.length > 0)
    request.stopSequences = stop.filter((item): item is string => typeof item === 'string')
  const user = raw['user'] ?? raw['safety_identifier']
  if (typeof user === 'string') request.user = user
  const effort = raw['reasoning_effort']
  if (
    effort === 'none' ||
    effort === 'minimal' ||
    effort === 'low' ||
    effort === 'medium' ||
    effort === 'high' ||
    effort === 'xhigh' ||
    effort === 'max'
  ) {
    request.reasoning = { effort }
  }
  const format = raw['response_format']
  if (isJsonObject(format) && format['type'] === 'json_object')
    request.responseFormat = { type: 'json' }
  else if (
    isJsonObject(format) &&
    format['type'] === 'json_schema' &&
    isJsonObject(format['json_schema'])
  ) {
    request.responseFormat = decodeJsonSchemaFormat(format['json_schema'])
  }
  if (body.stream_options?.include_usage === true) request.streamUsage = true
  return request
}

function textParts(content: unknown): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  return content.flatMap((part) =>
    isJsonObject(part) &&
    part['type'] === 'text' &&
    typeof part['text'] === 'string' &&
    part['text'] !== ''
      ? [{ type: 'text' as const, text: part['text'] }]
      : [],
  )
}

function userParts(content: unknown, messageIndex: number): Array<TextPart | ImagePart | FilePart> {
  if (typeof content === 'string') return textParts(content)
  if (!Array.isArray(content)) return []
  return content.flatMap((part, partIndex): Array<TextPart | ImagePart | FilePart> => {
    if (!isJsonObject(part)) return []
    if (part['type'] === 'text') return textParts([part])
    if (part['type'] === 'image_url' && isJsonObject(part['image_url'])) {
      const url = stringOf(part['image_url']['url'])
      const match = dataUrl.exec(url)
      return [
        match
          ? { type: 'image', source: { kind: 'base64', mediaType: match[1]!, data: match[2]! } }
          : { type: 'image', source: { kind: 'url', url } },
      ]
    }
    if (part['type'] === 'file' && isJsonObject(part['file'])) {
      const match = dataUrl.exec(stringOf(part['file']['file_data']))
      if (match) {
        return [
          {
            type: 'file',
            mediaType: match[1]!,
            source: { kind: 'base64', data: match[2]! },
            ...(typeof part['file']['filename'] === 'string'
              ? { filename: part['file']['filename'] }
              : {}),
          },
        ]
      }
    }
    throw new GatewayError(
      'invalid_request',
      `This upstream cannot take a \`${stringOf(part['type'])}\` content part.`,
      {
        param: `messages[${messageIndex}].content[${partIndex}]`,
      },
    )
  })
}
