import { openAIToolCallId } from './tool-call-id'
import { jsonInstruction } from '../../canonical/json-instruction'
import type {
  ChatRequest,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
} from '../../canonical/types'
import {
  cappedOutputLimit,
  cappedTemperature,
  checkModelInput,
  dropped,
} from '../../models/fit-request'
import { lenientTarget, type ModelTarget } from '../../models/model-target'
import type { ModelProfile } from '../../models/profile'
import { assistantReasoningFields } from './reasoning-history'
import { encodeOpenAIReasoning } from './reasoning-fields'
import { openAISchemaName } from './json-schema-format'

type OpenAIMessage = Record<string, unknown>

/**
 * Canonical form → a chat-completions request body, fitted to the target model's profile.
 *
 * - System messages become `system` messages, text joined (SYS-03).
 * - Each tool result becomes one `tool` message (multi-part text joined, never split: TOOL-H-05);
 *   `is_error` prefixes `Error: `; images a result carried follow in a user message.
 * - Reasoning from earlier turns goes back as `assistantReasoningFields` says: a model's own
 *   reasoning to that model, in its field, byte for byte; other reasoning only to models whose
 *   profile takes it back (DeepSeek, Kimi, GLM, Qwen, MiniMax: TOOL-H-11). OpenAI has no field
 *   for it. MiniMax is asked for `reasoning_split: true`, so that its reasoning is returned apart
 *   from the answer, in `reasoning_details`.
 * - The output limit goes in the model's field (`max_completion_tokens` for reasoning models,
 *   else `max_tokens`, GEN-01), capped at its maximum; `top_k` is dropped (GEN-03); usage is
 *   always asked for on streams.
 * - Reasoning is asked for only as the model takes it (`encodeOpenAIReasoning`); sampling fields
 *   are dropped where the model refuses them; a forced tool choice becomes `auto` for models
 *   that refuse it.
 * - A JSON answer is `json_schema` where the model constrains output to a schema, else
 *   `json_object` or an instruction carrying the schema.
 *
 * Every change made for the model is noted on `target.adjustments`.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export function encodeOpenAIRequest(
  request: ChatRequest,
  target: ModelTarget = lenientTarget(),
): Record<string, unknown> {
  const { profile } = target
  checkModelInput(request, target)
  const messages = request.messages.flatMap((message) =>
    encodeMessage(message, request.model, profile),
  )
  const body: Record<string, unknown> = { model: request.model, messages }
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
    const forced = choice.type === 'tool' || choice.type === 'required'
    if (forced && !profile.forcedToolChoice) {
      target.adjustments.push({
        field: 'tool_choice',
        change: 'mapped',
        from: choice.type === 'tool' ? choice.name : choice.type,
        to: 'auto',
        reason: `${profile.family} refuses a forced tool choice`,
      })
      body['tool_choice'] = 'auto'
    } else {
      body['tool_choice'] =
        choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type
    }
  }
  const limit = cappedOutputLimit(request.maxOutputTokens, target, profile.outputLimitField)
  if (limit !== undefined) body[profile.outputLimitField] = limit
  const reasoning = encodeOpenAIReasoning(request.reasoning, target)
  Object.assign(body, reasoning.fields)
  // MiniMax writes its reasoning into the answer's text unless asked to split it out.
  if (profile.reasoningField === 'reasoning_details') body['reasoning_split'] = true
  const samplingRefused =
    profile.sampling === 'none' || (profile.sampling === 'unless-reasoning' && reasoning.reasons)
  const samplingReason = `${profile.family} refuses sampling fields${profile.sampling === 'none' ? '' : ' while it reasons'}`
  if (request.temperature !== undefined) {
    if (samplingRefused) dropped(target, 'temperature', request.temperature, samplingReason)
    else body['temperature'] = cappedTemperature(request.temperature, target)
  }
  if (request.topP !== undefined) {
    if (samplingRefused) dropped(target, 'top_p', request.topP, samplingReason)
    else body['top_p'] = request.topP
  }
  if (request.stopSequences !== undefined) body['stop'] = request.stopSequences
  if (request.seed !== undefined) body['seed'] = request.seed
  if (request.user !== undefined) body['user'] = request.user
  if (request.responseFormat?.type === 'json') encodeResponseFormat(request, body, target)
  if (request.stream) {
    body['stream'] = true
    body['stream_options'] = { include_usage: true }
  }
  return body
}

/**
 * A JSON answer in the form the model takes: `json_schema` (name made OpenAI-safe), else
 * `json_object` with an instruction that quotes the schema, else the instruction alone. JSON mode
 * without a schema is refused by OpenAI unless the messages mention JSON, so the instruction is
 * added whenever they do not.
 */
function encodeResponseFormat(
  request: ChatRequest,
  body: Record<string, unknown>,
  target: ModelTarget,
): void {
  const format = request.responseFormat
  if (format?.type !== 'json') return
  const support = target.profile.structuredOutput
  const messages = body['messages'] as OpenAIMessage[]
  if ((support === 'schema' || support === 'tool') && format.schema !== undefined) {
    body['response_format'] = {
      type: 'json_schema',
      json_schema: {
        name: openAISchemaName(format.name),
        ...(format.description === undefined ? {} : { description: format.description }),
        schema: format.schema,
        ...(format.strict === undefined ? {} : { strict: format.strict }),
      },
    }
    return
  }
  if (support !== 'none') body['response_format'] = { type: 'json_object' }
  const mentionsJson = messages.some(
    (message) => typeof message['content'] === 'string' && /json/i.test(message['content']),
  )
  if (format.schema !== undefined || support === 'none' || !mentionsJson) {
    messages.unshift({ role: 'system', content: jsonInstruction(format) })
    if (format.schema !== undefined) {
      target.adjustments.push({
        field: 'response_format',
        change: 'mapped',
        from: 'json_schema',
        to: support === 'none' ? 'instruction' : 'json_object',
        reason: `${target.profile.family} does not constrain output to a schema; the schema goes in a system instruction`,
      })
    }
  }
}

function encodeMessage(message: Message, model: string, profile: ModelProfile): OpenAIMessage[] {
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
          ...assistantReasoningFields(message, model, profile),
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
