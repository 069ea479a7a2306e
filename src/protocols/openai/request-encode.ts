import { openAIToolCallId } from './tool-call-id'
import type {
  ChatRequest,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
} from '../../canonical/types'

type OpenAIMessage = Record<string, unknown>

/**
 * Canonical form → a chat-completions request body.
 *
 * - System messages become `system` messages, text joined (SYS-03).
 * - Each tool result becomes one `tool` message (multi-part text joined, never split: TOOL-H-05);
 *   `is_error` prefixes `Error: `; images a result carried follow in a user message.
 * - Reasoning from earlier turns is not sent (OpenAI has no field for it; README caveats).
 * - `max_tokens` carries the output limit (the widest-supported field among OpenAI-compatible
 *   servers, GEN-01); `top_k` is dropped (GEN-03); a thinking budget maps to `reasoning_effort`
 *   (≤ 1024 low, ≤ 8192 medium, else high: RSN-02); usage is always asked for on streams (GEN-08).
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export function encodeOpenAIRequest(request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: request.messages.flatMap(encodeMessage),
  }
  if (request.tools !== undefined && request.tools.length > 0) {
    body['tools'] = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.inputSchema,
      },
    }))
    if (request.parallelToolCalls === false) body['parallel_tool_calls'] = false
  }
  if (request.toolChoice !== undefined) {
    const choice = request.toolChoice
    body['tool_choice'] =
      choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type
  }
  if (request.maxOutputTokens !== undefined) body['max_tokens'] = request.maxOutputTokens
  if (request.temperature !== undefined) body['temperature'] = request.temperature
  if (request.topP !== undefined) body['top_p'] = request.topP
  if (request.stopSequences !== undefined) body['stop'] = request.stopSequences
  if (request.seed !== undefined) body['seed'] = request.seed
  if (request.user !== undefined) body['user'] = request.user
  const effort = reasoningEffort(request.reasoning)
  if (effort !== undefined) body['reasoning_effort'] = effort
  if (request.responseFormat?.type === 'json') {
    body['response_format'] =
      request.responseFormat.schema === undefined
        ? { type: 'json_object' }
        : {
            type: 'json_schema',
            json_schema: {
              name: request.responseFormat.name ?? 'response',
              schema: request.responseFormat.schema,
            },
          }
  }
  if (request.stream) {
    body['stream'] = true
    body['stream_options'] = { include_usage: true }
  }
  return body
}

function encodeMessage(message: Message): OpenAIMessage[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: message.content.map((part) => part.text).join('') }]
    case 'user':
      return [{ role: 'user', content: encodeUserContent(message.content) }]
    case 'assistant': {
      const text = message.content
        .filter((part): part is TextPart => part.type === 'text')
        .map((part) => part.text)
        .join('')
      const calls = message.content.flatMap((part) =>
        part.type === 'tool-call'
          ? [
              {
                id: openAIToolCallId(part.id),
                type: 'function',
                function: { name: part.name, arguments: part.arguments },
              },
            ]
          : [],
      )
      return [
        {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
      ]
    }
    case 'tool': {
      const images = message.content.flatMap((result) =>
        result.content.filter((part): part is ImagePart => part.type === 'image'),
      )
      const results = message.content.map(encodeToolResult)
      return images.length > 0
        ? [...results, { role: 'user', content: images.map(encodeImage) }]
        : results
    }
    default: {
      const unknown: never = message
      throw new Error(`Unknown message ${JSON.stringify(unknown)}`)
    }
  }
}

function encodeToolResult(result: ToolResultPart): OpenAIMessage {
  const text = result.content
    .filter((part): part is TextPart => part.type === 'text')
    .map((part) => part.text)
    .join('')
  return {
    role: 'tool',
    tool_call_id: openAIToolCallId(result.toolCallId),
    content: result.isError === true ? `Error: ${text}` : text,
  }
}

function encodeUserContent(
  parts: Array<TextPart | ImagePart | FilePart>,
): string | Array<Record<string, unknown>> {
  if (parts.every((part) => part.type === 'text'))
    return parts.map((part) => (part as TextPart).text).join('')
  return parts.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text }
    if (part.type === 'image') return encodeImage(part)
    if (part.source.kind === 'text') return { type: 'text', text: part.source.text }
    const fileData =
      part.source.kind === 'base64'
        ? `data:${part.mediaType};base64,${part.source.data}`
        : part.source.url
    return {
      type: 'file',
      file: {
        file_data: fileData,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
      },
    }
  })
}

function encodeImage(part: ImagePart): Record<string, unknown> {
  const url =
    part.source.kind === 'base64'
      ? `data:${part.source.mediaType};base64,${part.source.data}`
      : part.source.url
  return { type: 'image_url', image_url: { url } }
}

function reasoningEffort(reasoning: ChatRequest['reasoning']): string | undefined {
  if (reasoning === undefined) return undefined
  if (reasoning.effort !== undefined)
    return reasoning.effort === 'none' ? undefined : reasoning.effort
  const budget = reasoning.budgetTokens
  if (budget === undefined) return reasoning.enabled === true ? 'medium' : undefined
  return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high'
}
