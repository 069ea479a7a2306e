import { parseEmbeddedJson } from '../../http/embedded-json'
import type {
  AssistantMessage,
  ChatRequest,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
} from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import { jsonInstruction } from '../../canonical/json-instruction'
import { checkModelInput } from '../../models/fit-request'
import { lenientTarget, type ModelTarget } from '../../models/model-target'
import { geminiGenerationConfig } from './generation-config'
import { SKIP_THOUGHT_SIGNATURE } from './part-signature'
import { mediaTypeFromUrl } from './media-type'
import { decodeGeminiToolCallId } from './tool-call-id'
import { geminiToolName } from './tool-name'
import { encodeGeminiTools, encodeGeminiToolChoice } from './tools'

type Part = Record<string, unknown>
/** A tool result waiting to be paired with its call, which supplies the name. */
type PendingResult = { toolCallId: string; toolName: string; response: Record<string, unknown> }
/** A turn being built; `calls` and `results` keep the ids that the wire parts do not carry. */
type Turn = {
  role: 'user' | 'model'
  parts: Part[]
  calls: Array<{ id: string; name: string }>
  results: PendingResult[]
}

/**
 * Canonical form → a generateContent body (the model and stream flag go in the URL).
 *
 * - All system text goes to `systemInstruction.parts`, one part per text, in order (SYS-05).
 * - Roles become `user` and `model`; tool results travel in `user` turns; consecutive turns of
 *   one role merge (ROLE-02).
 * - Each user turn after a model turn with function calls starts with exactly one
 *   functionResponse per call, in call order (TOOL-H-06); a missing or unmatched result is a 400
 *   (TOOL-H-08: results are never made up). Ids are not sent: Gemini pairs by order, and the ids
 *   are not Gemini's own.
 * - A function call gets back its thought signature, from the part or from inside its id; a model
 *   turn whose first call has none gets Google's skip sentinel on that call (TOOL-H-09).
 * - Reasoning is not sent, except Gemini's own signed thoughts.
 * - Limits, sampling, JSON output and thinking are fitted to the target model
 *   (`geminiGenerationConfig`); every change is noted on `target.adjustments`.
 * - A conversation ending on a model turn (a prefill) loses that turn: Gemini requires the last
 *   turn to be the user's (ROLE-03, pinned: drop).
 * - Tools go in one `functionDeclarations` entry (TOOL-D-01) with names and schemas made
 *   acceptable to Gemini (TOOL-D-03, TOOL-D-04).
 *
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export function encodeGeminiRequest(
  request: ChatRequest,
  target: ModelTarget = lenientTarget(),
): Record<string, unknown> {
  checkModelInput(request, target)
  const system: Part[] = []
  const turns: Turn[] = []
  for (const message of request.messages) {
    if (message.role === 'system') {
      for (const part of message.content) if (part.text !== '') system.push({ text: part.text })
      continue
    }
    const turn = encodeTurn(message)
    if (turn.parts.length === 0 && turn.results.length === 0) continue
    const previous = turns.at(-1)
    if (previous?.role === turn.role) {
      previous.parts.push(...turn.parts)
      previous.calls.push(...turn.calls)
      previous.results.push(...turn.results)
    } else {
      turns.push(turn)
    }
  }
  if (turns.at(-1)?.role === 'model') turns.pop()
  if (turns.length === 0) {
    throw new GatewayError('invalid_request', 'Gemini needs at least one user turn.', {
      param: 'messages',
    })
  }
  const contents = turns.map((turn, index) => {
    if (turn.role === 'model') return { role: 'model', parts: withSkipSignature(turn.parts) }
    const previous = turns[index - 1]
    const responses = pairResults(previous?.role === 'model' ? previous.calls : [], turn.results)
    return { role: 'user', parts: [...responses, ...turn.parts] }
  })
  const body: Record<string, unknown> = { contents }
  if (system.length > 0) body['systemInstruction'] = { parts: system }
  if (request.tools !== undefined && request.tools.length > 0) {
    body['tools'] = encodeGeminiTools(request.tools)
    if (request.toolChoice !== undefined)
      body['toolConfig'] = { functionCallingConfig: encodeGeminiToolChoice(request.toolChoice) }
  }
  const format = request.responseFormat
  if (
    format?.type === 'json' &&
    format.schema !== undefined &&
    target.profile.structuredOutput !== 'schema'
  ) {
    // A model that gives JSON but no schema-constrained output gets the schema as an instruction.
    system.push({ text: jsonInstruction(format) })
    body['systemInstruction'] = { parts: system }
  }
  const generationConfig = geminiGenerationConfig(request, target)
  if (Object.keys(generationConfig).length > 0) body['generationConfig'] = generationConfig
  return body
}

function encodeTurn(message: Exclude<Message, { role: 'system' }>): Turn {
  switch (message.role) {
    case 'user':
      return { role: 'user', parts: message.content.flatMap(userPart), calls: [], results: [] }
    case 'tool':
      return {
        role: 'user',
        // Images of a tool result follow the functionResponse parts as plain media parts.
        parts: message.content.flatMap((result) =>
          result.content.flatMap((part) => (part.type === 'image' ? [mediaPart(part)] : [])),
        ),
        calls: [],
        results: message.content.map((result) => ({
          toolCallId: result.toolCallId,
          toolName: result.toolName,
          response: functionResponse(result),
        })),
      }
    case 'assistant':
      return modelTurn(message)
    default: {
      const unknown: never = message
      throw new Error(`Unknown message ${JSON.stringify(unknown)}`)
    }
  }
}

function userPart(part: TextPart | ImagePart | FilePart): Part[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }]
    case 'image':
    case 'file':
      return [mediaPart(part)]
    default: {
      const unknown: never = part
      throw new Error(`Unknown user part ${JSON.stringify(unknown)}`)
    }
  }
}

function mediaPart(part: ImagePart | FilePart): Part {
  if (part.type === 'image') {
    return part.source.kind === 'base64'
      ? { inlineData: { mimeType: part.source.mediaType, data: part.source.data } }
      : {
          fileData: {
            // fileData requires a type, which image URLs do not carry (CNT-02).
            mimeType: mediaTypeFromUrl(part.source.url) ?? 'image/jpeg',
            fileUri: part.source.url,
          },
        }
  }
  switch (part.source.kind) {
    case 'base64':
      return { inlineData: { mimeType: part.mediaType, data: part.source.data } }
    case 'url':
      return { fileData: { mimeType: part.mediaType, fileUri: part.source.url } }
    case 'text':
      // A text document stays a document (inline text/plain), not loose prompt text.
      return {
        inlineData: {
          mimeType: part.mediaType.startsWith('text/') ? part.mediaType : 'text/plain',
          data: utf8Base64(part.source.text),
        },
      }
    default: {
      const unknown: never = part.source
      throw new Error(`Unknown file source ${JSON.stringify(unknown)}`)
    }
  }
}

function modelTurn(message: AssistantMessage): Turn {
  const turn: Turn = { role: 'model', parts: [], calls: [], results: [] }
  for (const part of message.content) {
    if (part.type === 'reasoning') {
      // Only Gemini's own signed thoughts go back; other reasoning has no place in a Gemini turn.
      if (part.signature?.protocol === 'gemini')
        turn.parts.push({ text: part.text, thought: true, thoughtSignature: part.signature.value })
    } else if (part.type === 'text') {
      if (part.text !== '') turn.parts.push({ text: part.text })
    } else {
      const signature =
        part.signature?.protocol === 'gemini'
          ? part.signature.value
          : decodeGeminiToolCallId(part.id).signature
      const name = geminiToolName(part.name)
      turn.parts.push({
        functionCall: { name, args: toolArgs(part.arguments) },
        ...(signature === undefined ? {} : { thoughtSignature: signature }),
      })
      turn.calls.push({ id: part.id, name })
    }
  }
  return turn
}

/** Only the first call of a parallel group carries a signature, so only it gets the sentinel. */
function withSkipSignature(parts: Part[]): Part[] {
  const first = parts.find((part) => part['functionCall'] !== undefined)
  if (first !== undefined && first['thoughtSignature'] === undefined)
    first['thoughtSignature'] = SKIP_THOUGHT_SIGNATURE
  return parts
}

/** One functionResponse per call, in call order: by id, else the next unanswered call by name. */
function pairResults(calls: Turn['calls'], results: PendingResult[]): Part[] {
  const slots: Array<Part | undefined> = calls.map(() => undefined)
  for (const result of results) {
    const free = (index: number) => slots[index] === undefined
    let index = calls.findIndex((call, at) => free(at) && call.id === result.toolCallId)
    if (index < 0) {
      const name = geminiToolName(result.toolName)
      index = calls.findIndex((call, at) => free(at) && name !== '' && call.name === name)
    }
    if (index < 0) {
      throw new GatewayError(
        'invalid_request',
        `The tool result for \`${result.toolCallId}\` answers no tool call of the turn before it.`,
      )
    }
    slots[index] = { functionResponse: { name: calls[index]!.name, response: result.response } }
  }
  const missing = slots.findIndex((slot) => slot === undefined)
  if (missing >= 0) {
    throw new GatewayError(
      'invalid_request',
      `The tool call \`${calls[missing]!.id}\` has no tool result in the turn after it.`,
    )
  }
  return slots as Part[]
}

/**
 * A functionResponse `response`, which must be a JSON object: a result that
 * is a JSON object's text is passed as that object, any other text as `{result}`, an error as
 * `{error}`.
 */
function functionResponse(result: ToolResultPart): Record<string, unknown> {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
  if (result.isError === true) return { error: text }
  if (text.trimStart().startsWith('{')) {
    const parsed = parseEmbeddedJson(text, "a tool result's content", 'client')
    if (parsed.ok && isJsonObject(parsed.value)) return parsed.value
  }
  return { result: text }
}

function toolArgs(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  const parsed = parseEmbeddedJson(text, "a tool call's arguments", 'client')
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
}

function utf8Base64(text: string): string {
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}
