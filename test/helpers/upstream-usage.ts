import type { TokenUsage } from '../../src/index'

/** An upstream kind of the fakes. */
export type UpstreamKind = 'openai' | 'anthropic' | 'gemini' | 'responses'

type Json = Record<string, any>

/**
 * The usage an upstream reported in one answer (JSON or SSE text), read with each vendor's own
 * arithmetic — written here independently of the gateway's mappers — so that tests can check the
 * meter recorded exactly that: OpenAI's `prompt_tokens` and `completion_tokens`; Anthropic's input
 * plus cache reads and writes, and the last cumulative `output_tokens`; Gemini's prompt (plus
 * tool-use prompt) and candidates plus thoughts; the Responses API's terminal `usage`.
 */
export function upstreamUsage(kind: UpstreamKind, text: string): TokenUsage {
  const events = text.trimStart().startsWith('{') ? [JSON.parse(text) as Json] : sseData(text)
  let input = 0
  let output = 0
  let cached = 0
  for (const event of events) {
    if (kind === 'openai' && event['usage']) {
      input = event['usage']['prompt_tokens']
      output = event['usage']['completion_tokens']
      cached = event['usage']['prompt_tokens_details']?.['cached_tokens'] ?? 0
    }
    if (kind === 'anthropic') {
      const usage = event['type'] === 'message_start' ? event['message']['usage'] : event['usage']
      if (usage) {
        if (usage['input_tokens'] !== undefined)
          input =
            usage['input_tokens'] +
            (usage['cache_read_input_tokens'] ?? 0) +
            (usage['cache_creation_input_tokens'] ?? 0)
        if (usage['cache_read_input_tokens'] !== undefined)
          cached = usage['cache_read_input_tokens']
        if (usage['output_tokens'] !== undefined) output = usage['output_tokens']
      }
    }
    if (kind === 'gemini' && event['usageMetadata']) {
      const usage = event['usageMetadata']
      input = (usage['promptTokenCount'] ?? 0) + (usage['toolUsePromptTokenCount'] ?? 0)
      output = (usage['candidatesTokenCount'] ?? 0) + (usage['thoughtsTokenCount'] ?? 0)
      cached = usage['cachedContentTokenCount'] ?? 0
    }
    if (kind === 'responses') {
      const usage =
        event['response']?.['usage'] ??
        (event['object'] === 'response' ? event['usage'] : undefined)
      if (usage) {
        input = usage['input_tokens']
        output = usage['output_tokens']
        cached = usage['input_tokens_details']?.['cached_tokens'] ?? 0
      }
    }
  }
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: cached,
    totalTokens: input + output,
  }
}

function sseData(text: string): Json[] {
  return text
    .split(/\r?\n\r?\n/)
    .flatMap((frame) =>
      frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim()),
    )
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Json)
}
