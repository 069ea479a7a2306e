import { isJsonObject, parseJson } from '../../internal/json'
import { estimateTokens } from '../../usage/estimate-tokens'
import { framesToStream, sseHeaders } from './frames-stream'
import { mockReply, splitIntoChunks, type MockMessage } from './mock-reply'
import type { OpenAIMockOptions } from './openai-mock'

/**
 * Answers a generateContent body as Gemini would: a `GenerateContentResponse`, or (for
 * `:streamGenerateContent?alt=sse`) `data:` events holding only the new parts, with cumulative
 * `usageMetadata` and no terminator.
 *
 * @see https://ai.google.dev/api/generate-content
 */
export function answerGeminiGenerate(
  body: string,
  model: string,
  options: OpenAIMockOptions & { stream: boolean },
): Response {
  const parsed = parseJson(body)
  const request = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
  const messages = readContents(request['contents'])
  const reply = mockReply(messages, options.reply)
  const promptTokens = countPrompt(request)
  const candidates = estimateTokens(reply)
  const usage = (output: number) => ({
    promptTokenCount: promptTokens,
    candidatesTokenCount: output,
    totalTokenCount: promptTokens + output,
  })
  const base = { modelVersion: model, responseId: options.id }
  if (!options.stream) {
    return Response.json({
      candidates: [
        { content: { role: 'model', parts: [{ text: reply }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: usage(candidates),
      ...base,
    })
  }
  const pieces = splitIntoChunks(reply)
  let sent = 0
  const frames = pieces.map((text, index) => {
    sent += estimateTokens(text)
    const last = index === pieces.length - 1
    const event = {
      candidates: [
        {
          content: { role: 'model', parts: [{ text }] },
          index: 0,
          ...(last ? { finishReason: 'STOP' } : {}),
        },
      ],
      usageMetadata: usage(last ? candidates : Math.min(sent, candidates)),
      ...base,
    }
    return `data: ${JSON.stringify(event)}\r\n\r\n`
  })
  return new Response(framesToStream(frames, options.chunkDelayMs ?? 0), { headers: sseHeaders })
}

/** Answers `:countTokens`, accepting `{contents}` or `{generateContentRequest}`. */
export function answerGeminiCountTokens(body: string): Response {
  const parsed = parseJson(body)
  const request = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
  const inner = isJsonObject(request['generateContentRequest'])
    ? request['generateContentRequest']
    : request
  return Response.json({ totalTokens: countPrompt(inner) })
}

function readContents(contents: unknown): MockMessage[] {
  if (!Array.isArray(contents)) return []
  return contents.filter(isJsonObject).map((content) => ({
    role: content['role'] === 'model' ? 'assistant' : 'user',
    text: partsText(content['parts']),
  }))
}

function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return ''
  return parts
    .filter(isJsonObject)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .join('')
}

function countPrompt(request: Record<string, unknown>): number {
  const system = isJsonObject(request['systemInstruction'])
    ? partsText(request['systemInstruction']['parts'])
    : ''
  const text = readContents(request['contents'])
    .map((message) => message.text)
    .join('\n')
  const tools = request['tools'] === undefined ? '' : JSON.stringify(request['tools'])
  return estimateTokens(system) + estimateTokens(text) + estimateTokens(tools)
}
