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
import { jsonInstruction } from '../../canonical/json-instruction'
import { encodeOpenAIReasoning } from '../openai/reasoning-fields'
import { openAISchemaName } from '../openai/json-schema-format'

type Item = Record<string, unknown>

/**
 * Canonical form → a Responses request body, for chat-completions, messages and Gemini clients of
 * an OpenAI upstream marked `responses: true`.
 *
 * - Leading system messages become `instructions`; later ones `developer` messages in place.
 * - User content becomes `input_text` / `input_image` / `input_file` parts; assistant text an
 *   assistant message; tool calls `function_call` items; tool results `function_call_output`
 *   items (text, or parts when a result holds images).
 * - Reasoning from earlier turns is not sent: the Responses API only takes back its own encrypted
 *   reasoning, which no other protocol's client carries.
 * - Function tools are sent with `strict: false`: the Responses API defaults to strict schemas,
 *   which most client schemas do not meet.
 * - `max_output_tokens`, `temperature`, `top_p`, `parallel_tool_calls`, `tool_choice`,
 *   `reasoning.effort` (with `summary: "auto"`, so that reasoning comes back as text),
 *   `text.format` for JSON output (as for chat completions) and `user` are carried. The API has no stop sequences and no
 *   seed: those are dropped (docs/translation.md › Caveats). `store: false`: the gateway keeps no state upstream.
 * - The output limit, the effort and sampling are fitted to the target model's profile as for
 *   chat completions (capped limit, nearest accepted effort, no sampling where refused).
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function encodeResponsesRequest(
  request: ChatRequest,
  target: ModelTarget = lenientTarget(),
): Record<string, unknown> {
  checkModelInput(request, target)
  const instructions: string[] = []
  const input: Item[] = []
  for (const message of request.messages) {
    if (message.role === 'system' && input.length === 0) {
      instructions.push(message.content.map((part) => part.text).join(''))
      continue
    }
    input.push(...encodeMessage(message))
  }
  // Before the body: JSON mode may add an instruction.
  const text = encodeTextFormat(request, instructions, input, target)
  const body: Record<string, unknown> = { model: request.model }
  if (instructions.length > 0) body['instructions'] = instructions.join('\n\n')
  body['input'] = input
  if (request.tools !== undefined && request.tools.length > 0) {
    body['tools'] = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.inputSchema,
      strict: false,
    }))
    if (request.parallelToolCalls === false) body['parallel_tool_calls'] = false
    const choice = request.toolChoice
    if (choice !== undefined)
      body['tool_choice'] =
        choice.type === 'tool' ? { type: 'function', name: choice.name } : choice.type
  }
  const limit = cappedOutputLimit(request.maxOutputTokens, target, 'max_output_tokens')
  if (limit !== undefined) body['max_output_tokens'] = raisedOutputLimit(limit, target)
  const { effort, reasons } = fittedEffort(request.reasoning, target)
  if (effort !== undefined) body['reasoning'] = { effort, summary: 'auto' }
  const sampling = target.profile.sampling
  const refused = sampling === 'none' || (sampling === 'unless-reasoning' && reasons)
  for (const [field, value] of [
    ['temperature', request.temperature],
    ['top_p', request.topP],
  ] as const) {
    if (value === undefined) continue
    if (refused) dropped(target, field, value, `${target.profile.family} refuses sampling fields`)
    else body[field] = field === 'temperature' ? cappedTemperature(value, target) : value
  }
  if (request.user !== undefined) body['user'] = request.user
  if (text !== undefined) body['text'] = text
  body['store'] = false
  if (request.stream) body['stream'] = true
  return body
}

/**
 * A JSON answer's `text.format`, in the form the model takes, as for chat completions:
 * `json_schema` (name made OpenAI-safe, `strict` only when the client asked), else `json_object`
 * with an instruction quoting the schema. JSON mode without a schema is refused unless the input
 * mentions JSON, so the instruction is added whenever it does not.
 */
function encodeTextFormat(
  request: ChatRequest,
  instructions: string[],
  input: readonly Item[],
  target: ModelTarget,
): { format: Item } | undefined {
  const format = request.responseFormat
  if (format?.type !== 'json') return undefined
  const support = target.profile.structuredOutput
  if ((support === 'schema' || support === 'tool') && format.schema !== undefined) {
    return {
      format: {
        type: 'json_schema',
        name: openAISchemaName(format.name),
        ...(format.description === undefined ? {} : { description: format.description }),
        schema: format.schema,
        strict: format.strict === true,
      },
    }
  }
  const text = support === 'none' ? undefined : { format: { type: 'json_object' } }
  const mentionsJson = /json/i.test(JSON.stringify([instructions, input]))
  if (format.schema === undefined && text !== undefined && mentionsJson) return text
  instructions.unshift(jsonInstruction(format))
  if (format.schema !== undefined)
    target.adjustments.push({
      field: 'text.format',
      change: 'mapped',
      from: 'json_schema',
      to: support === 'none' ? 'instruction' : 'json_object',
      reason: `${target.profile.family} does not constrain output to a schema; the schema goes in the instructions`,
    })
  return text
}

function encodeMessage(message: Message): Item[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'developer', content: message.content.map((part) => part.text).join('') }]
    case 'user':
      return [{ role: 'user', content: message.content.map(userPart) }]
    case 'assistant': {
      const items: Item[] = []
      for (const part of message.content) {
        if (part.type === 'text' && part.text !== '') {
          const last = items.at(-1)
          if (last?.['role'] === 'assistant') last['content'] += part.text
          else items.push({ role: 'assistant', content: part.text })
        } else if (part.type === 'tool-call') {
          items.push({
            type: 'function_call',
            call_id: part.id,
            name: part.name,
            arguments: part.arguments.trim() === '' ? '{}' : part.arguments,
          })
        }
      }
      return items
    }
    case 'tool':
      return message.content.map(toolOutput)
    default: {
      const unknown: never = message
      throw new Error(`Unknown message ${JSON.stringify(unknown)}`)
    }
  }
}

function userPart(part: TextPart | ImagePart | FilePart): Item {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text }
    case 'image':
      return { type: 'input_image', image_url: imageUrl(part), detail: 'auto' }
    case 'file':
      if (part.source.kind === 'text') return { type: 'input_text', text: part.source.text }
      return part.source.kind === 'url'
        ? { type: 'input_file', file_url: part.source.url }
        : {
            type: 'input_file',
            file_data: `data:${part.mediaType};base64,${part.source.data}`,
            filename: part.filename ?? 'document',
          }
    default: {
      const unknown: never = part
      throw new Error(`Unknown user part ${JSON.stringify(unknown)}`)
    }
  }
}

function imageUrl(part: ImagePart): string {
  return part.source.kind === 'base64'
    ? `data:${part.source.mediaType};base64,${part.source.data}`
    : part.source.url
}

function toolOutput(result: ToolResultPart): Item {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
  const prefixed = result.isError === true ? `Error: ${text}` : text
  const images = result.content.filter((part): part is ImagePart => part.type === 'image')
  return {
    type: 'function_call_output',
    call_id: result.toolCallId,
    output:
      images.length === 0
        ? prefixed
        : [
            ...(prefixed === '' ? [] : [{ type: 'input_text', text: prefixed }]),
            ...images.map((image) => ({
              type: 'input_image',
              image_url: imageUrl(image),
              detail: 'auto',
            })),
          ],
  }
}

/**
 * `reasoning.effort` for the target model: an OpenAI reasoning model gets the nearest effort it
 * accepts (`encodeOpenAIReasoning`); any other model the plain mapping below.
 */
function fittedEffort(
  reasoning: ChatRequest['reasoning'],
  target: ModelTarget,
): { effort: string | undefined; reasons: boolean } {
  const kind = target.profile.reasoning.kind
  if (kind === 'effort' || kind === 'none' || kind === 'always') {
    const fitted = encodeOpenAIReasoning(reasoning, target, 'reasoning.effort')
    const effort = fitted.fields['reasoning_effort']
    return { effort: typeof effort === 'string' ? effort : undefined, reasons: fitted.reasons }
  }
  const effort = reasoningEffort(reasoning)
  return { effort, reasons: effort !== undefined }
}

function reasoningEffort(reasoning: ChatRequest['reasoning']): string | undefined {
  if (reasoning === undefined) return undefined
  // OpenAI's highest effort is `xhigh`.
  if (reasoning.effort !== undefined)
    return reasoning.effort === 'none'
      ? undefined
      : reasoning.effort === 'max'
        ? 'xhigh'
        : reasoning.effort
  const budget = reasoning.budgetTokens
  if (budget === undefined) return reasoning.enabled === true ? 'medium' : undefined
  return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high'
}

/** The Responses API's smallest `max_output_tokens`; OpenAI refuses anything below it. */
const minimumOutputTokens = 16

/**
 * An output limit the Responses API accepts: below 16 OpenAI answers "integer below minimum
 * value", so a smaller one (Anthropic clients' `max_tokens: 1` probes) is raised and noted.
 */
function raisedOutputLimit(limit: number, target: ModelTarget): number {
  if (limit >= minimumOutputTokens) return limit
  target.adjustments.push({
    field: 'max_output_tokens',
    change: 'clamped',
    from: limit,
    to: minimumOutputTokens,
    reason: `the Responses API takes max_output_tokens of at least ${minimumOutputTokens}`,
  })
  return minimumOutputTokens
}
