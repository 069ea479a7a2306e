import type { TokenUsage } from '../../src/extend'

/** An upstream kind of the fakes. */
export type UpstreamKind = 'openai' | 'anthropic' | 'gemini' | 'responses'

type Json = Record<string, any>

/**
 * The usage an upstream reported in one answer (JSON or SSE text), read with each vendor's own
 * arithmetic — written here independently of the gateway's mappers — so that tests can check the
 * meter recorded exactly that: OpenAI's `prompt_tokens` and `completion_tokens`; Anthropic's input
 * plus cache reads and writes, and the last cumulative `output_tokens`; Gemini's prompt (plus
 * tool-use prompt) and candidates plus thoughts; the Responses API's terminal `usage`. Each
 * category apart: cache reads, cache writes (Anthropic's 1-hour ones on their own), reasoning.
 */
export function upstreamUsage(kind: UpstreamKind, text: string): TokenUsage {
  const events = text.trimStart().startsWith('{') ? [JSON.parse(text) as Json] : sseData(text)
  let input = 0
  let output = 0
  let cached = 0
  let written = 0
  let writtenHour = 0
  let reasoning = 0
  for (const event of events) {
    if (kind === 'openai' && event['usage']) {
      input = event['usage']['prompt_tokens']
      output = event['usage']['completion_tokens']
      cached = event['usage']['prompt_tokens_details']?.['cached_tokens'] ?? 0
      written = event['usage']['prompt_tokens_details']?.['cache_write_tokens'] ?? 0
      reasoning = event['usage']['completion_tokens_details']?.['reasoning_tokens'] ?? 0
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
        if (usage['cache_creation_input_tokens'] !== undefined) {
          // message_delta repeats the total without the split: the split stays as it was.
          if (usage['cache_creation'] !== undefined)
            writtenHour = usage['cache_creation']['ephemeral_1h_input_tokens'] ?? 0
          written = usage['cache_creation_input_tokens'] - writtenHour
        }
        if (usage['output_tokens'] !== undefined) output = usage['output_tokens']
        if (usage['output_tokens_details']?.['thinking_tokens'] !== undefined)
          reasoning = usage['output_tokens_details']['thinking_tokens']
      }
    }
    if (kind === 'gemini' && event['usageMetadata']) {
      const usage = event['usageMetadata']
      input = (usage['promptTokenCount'] ?? 0) + (usage['toolUsePromptTokenCount'] ?? 0)
      output = (usage['candidatesTokenCount'] ?? 0) + (usage['thoughtsTokenCount'] ?? 0)
      cached = usage['cachedContentTokenCount'] ?? 0
      reasoning = usage['thoughtsTokenCount'] ?? 0
    }
    if (kind === 'responses') {
      const usage =
        event['response']?.['usage'] ??
        (event['object'] === 'response' ? event['usage'] : undefined)
      if (usage) {
        input = usage['input_tokens']
        output = usage['output_tokens']
        cached = usage['input_tokens_details']?.['cached_tokens'] ?? 0
        written = usage['input_tokens_details']?.['cache_write_tokens'] ?? 0
        reasoning = usage['output_tokens_details']?.['reasoning_tokens'] ?? 0
      }
    }
  }
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: cached,
    cacheWriteInputTokens: written,
    cacheWrite1hInputTokens: writtenHour,
    reasoningTokens: reasoning,
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
