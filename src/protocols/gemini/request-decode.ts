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
import { unpackCarriedThinking } from './carried-thinking'
import { partSignature, signedByGemini } from './part-signature'
import { isJsonObject, stringOf } from '../../internal/json'
import { decodeBlob, decodeFileData } from './decode-media'
import { applyGeminiGenerationConfig } from './generation-config'
import type { GeminiGenerateContentRequest } from './request-schema'
import { encodeGeminiToolCallId } from './tool-call-id'
import { decodeGeminiToolChoice, decodeGeminiTools } from './tools'

type Part = Record<string, unknown>

/** A function call of a model turn that still waits for its functionResponse. */
type PendingCall = { id: string; callId?: string; name: string; answered: boolean; param: string }

/**
 * A generateContent body (camelCase, see `normalizeGeminiBody`) → canonical form. The model and
 * the stream flag come from the URL (`…/models/{model}:streamGenerateContent`), not the body.
 *
 * - `systemInstruction` text parts become one system message, one text part each (SYS-07); any
 *   other part there is refused with 400.
 * - Contents without a role are user turns; `model` turns are assistant messages.
 * - Thought parts of a model turn are reasoning, their `thoughtSignature` kept as Gemini's.
 * - A function call keeps its `thoughtSignature` both as the part's signature and inside its id
 *   (TOOL-H-09); calls without an id get `call_<turn>_<part>`, stable across requests (TOOL-H-07).
 *   Google's skip sentinel is no signature. A signature that carries the gateway's reasoning
 *   (`packCarriedThinking`) becomes that signed reasoning, placed before the call; one that
 *   starts as the gateway's but does not read back is refused with 400.
 * - Each functionResponse answers the call with the same id, else the N-th unanswered call of the
 *   same name in the model turn before it (TOOL-H-07). A response that answers nothing, or a call
 *   left unanswered once the user has spoken, is refused with 400 (TOOL-H-08).
 * - Audio and video have no counterpart elsewhere and are refused with 400 (CNT-05).
 * - `functionDeclarations` of every `tools` entry become tools; OpenAPI `parameters` become JSON
 *   Schema (TOOL-D-07); built-in tools such as `googleSearch` are dropped (docs/translation.md › Caveats).
 * - `safetySettings`, `cachedContent`, penalties and `labels` have no counterpart (GEN-09).
 *
 * @example
 * decodeGeminiRequest({ contents: [{ parts: [{ text: 'Hi' }] }] }, 'gpt-4o', false)
 * @see https://ai.google.dev/api/generate-content#method:-models.generatecontent
 */
export function decodeGeminiRequest(
  body: GeminiGenerateContentRequest,
  model: string,
  stream: boolean,
): ChatRequest {
  const messages: Message[] = []
  const system = systemParts(body.systemInstruction?.parts ?? [])
  if (system.length > 0) messages.push({ role: 'system', content: system })
  let pending: PendingCall[] = []
  let userSpoke = false
  body.contents.forEach((content, turn) => {
    const parts = content.parts as Part[]
    if (content.role === 'model') {
      // Consecutive model turns form one turn, whose calls the next user turn answers together.
      if (userSpoke) {
        checkAnswered(pending)
        pending = []
        userSpoke = false
      }
      messages.push(decodeModelTurn(parts, turn, pending))
      return
    }
    userSpoke = true
    const results: ToolResultPart[] = []
    const rest: Array<TextPart | ImagePart | FilePart> = []
    parts.forEach((part, index) => {
      const param = `contents[${turn}].parts[${index}]`
      if (isJsonObject(part['functionResponse']))
        results.push(decodeFunctionResponse(part['functionResponse'], param, pending))
      else rest.push(...decodeUserPart(part, param))
    })
    if (results.length > 0) messages.push({ role: 'tool', content: results })
    if (rest.length > 0) messages.push({ role: 'user', content: rest })
  })
  if (userSpoke) checkAnswered(pending)
  const request: ChatRequest = { model, messages, stream }
  const tools = decodeGeminiTools(body.tools ?? [])
  if (tools.length > 0) request.tools = tools
  const toolChoice = decodeGeminiToolChoice(body.toolConfig?.functionCallingConfig)
  if (toolChoice !== undefined) request.toolChoice = toolChoice
  if (body.generationConfig !== undefined)
    applyGeminiGenerationConfig(request, body.generationConfig)
  return request
}

function systemParts(parts: Part[]): TextPart[] {
  return parts.flatMap((part, index) => {
    if (typeof part['text'] !== 'string') {
      throw new GatewayError(
        'invalid_request',
        '`systemInstruction` may hold only text parts when the upstream is not Gemini.',
        { param: `systemInstruction.parts[${index}]` },
      )
    }
    // Empty system text is dropped, never sent as an empty block.
    return part['text'] === '' ? [] : [{ type: 'text' as const, text: part['text'] }]
  })
}

function decodeModelTurn(parts: Part[], turn: number, pending: PendingCall[]): AssistantMessage {
  const content: AssistantMessage['content'] = []
  parts.forEach((part, index) => {
    const found = partSignature(part)
    // Reasoning the gateway carried in the signature (Anthropic thinking, an OpenAI-compatible
    // upstream's reasoning) goes back as signed reasoning, before the call it preceded; it is no
    // Gemini signature.
    const carried =
      found === undefined
        ? undefined
        : unpackCarriedThinking(found, `contents[${turn}].parts[${index}].thoughtSignature`)
    if (carried !== undefined) content.push(...carried)
    const signature = carried === undefined ? found : undefined
    const signed = signedByGemini(signature)
    const call = part['functionCall']
    if (isJsonObject(call)) {
      const name = stringOf(call['name'])
      const callId = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : undefined
      const id = encodeGeminiToolCallId(signature, callId ?? `call_${turn}_${index}`)
      pending.push({
        id,
        callId,
        name,
        answered: false,
        param: `contents[${turn}].parts[${index}]`,
      })
      content.push({
        type: 'tool-call',
        id,
        name,
        arguments: JSON.stringify(call['args'] ?? {}),
        ...signed,
      })
    } else if (typeof part['text'] === 'string') {
      if (part['thought'] === true) {
        // A thought may be empty and carry only the signature; that still has to go back.
        if (part['text'] !== '' || signature !== undefined)
          content.push({ type: 'reasoning', text: part['text'], ...signed })
      } else if (part['text'] !== '') {
        // A signature on a plain text part is optional to send back and has no canonical home.
        content.push({ type: 'text', text: part['text'] })
      }
    }
    // Media and code-execution parts of a model turn have no canonical home and are dropped: an
    // assistant message carries text, reasoning and tool calls only.
  })
  return { role: 'assistant', content }
}

function decodeUserPart(part: Part, param: string): Array<TextPart | ImagePart | FilePart> {
  if (typeof part['text'] === 'string')
    return part['text'] === '' ? [] : [{ type: 'text', text: part['text'] }]
  if (isJsonObject(part['inlineData'])) return [decodeBlob(part['inlineData'], param)]
  if (isJsonObject(part['fileData'])) return [decodeFileData(part['fileData'], param)]
  const kind = Object.keys(part).find((key) => key !== 'thoughtSignature') ?? 'empty'
  throw new GatewayError(
    'invalid_request',
    `A user turn cannot carry a \`${kind}\` part when the upstream is not Gemini.`,
    { param },
  )
}

function decodeFunctionResponse(
  response: Record<string, unknown>,
  param: string,
  pending: PendingCall[],
): ToolResultPart {
  const name = stringOf(response['name'])
  const callId =
    typeof response['id'] === 'string' && response['id'] !== '' ? response['id'] : undefined
  const call =
    (callId === undefined
      ? undefined
      : pending.find((item) => !item.answered && item.callId === callId)) ??
    pending.find((item) => !item.answered && item.name === name)
  if (call === undefined) {
    throw new GatewayError(
      'invalid_request',
      `The functionResponse \`${name}\` answers no function call of the model turn before it.`,
      { param },
    )
  }
  call.answered = true
  const { text, isError } = responseText(response['response'])
  const content: ToolResultPart['content'] = [{ type: 'text', text }]
  // Gemini 3 multimodal function responses carry media in `parts`; images have a canonical home.
  const parts = Array.isArray(response['parts']) ? response['parts'] : []
  parts.forEach((part, index) => {
    if (!isJsonObject(part) || !isJsonObject(part['inlineData'])) return
    const media = decodeBlob(part['inlineData'], `${param}.functionResponse.parts[${index}]`)
    if (media.type === 'image') content.push(media)
  })
  return {
    type: 'tool-result',
    toolCallId: call.id,
    toolName: name,
    content,
    ...(isError ? { isError: true } : {}),
  }
}

/**
 * The text of a functionResponse `response` object: `{result}` or `{output}` holding a string is
 * that string (`{result}` is what the gateway itself sends, TOOL-H-06; `output` is Google's
 * documented key); `{error}` alone marks an error; anything else is its JSON text.
 */
function responseText(response: unknown): { text: string; isError: boolean } {
  if (!isJsonObject(response)) return { text: JSON.stringify(response ?? {}), isError: false }
  const keys = Object.keys(response)
  if (keys.length === 1) {
    const value = response[keys[0]!] // lookup-safe: an own key, from Object.keys
    if ((keys[0] === 'result' || keys[0] === 'output') && typeof value === 'string')
      return { text: value, isError: false }
    if (keys[0] === 'error')
      return { text: typeof value === 'string' ? value : JSON.stringify(value), isError: true }
  }
  return { text: JSON.stringify(response), isError: false }
}

function checkAnswered(pending: PendingCall[]): void {
  const open = pending.find((call) => !call.answered)
  if (open === undefined) return
  throw new GatewayError(
    'invalid_request',
    `The function call \`${open.name}\` has no functionResponse in the user turn after it.`,
    { param: open.param },
  )
}
