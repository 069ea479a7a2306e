import type { TokenUsage } from '../../../src/extend'
import { anthropicMessage, anthropicTextFrames } from '../../helpers/anthropic-upstream'
import { geminiResponse, geminiTextFrames } from '../../helpers/gemini-upstream'
import { responseObject, responsesStreamFrames } from '../../helpers/responses-upstream'
import { chatStreamFrames, type UpstreamBehaviour } from '../../helpers/upstream'

/** The four upstream kinds, and the four client protocols, of the matrix. */
export type Family = 'openai' | 'anthropic' | 'gemini' | 'responses'

/** Every family, in the matrix's order. */
export const families: Family[] = ['openai', 'anthropic', 'gemini', 'responses']

/** What each upstream reports for its text answer and its text stream (the fixtures' figures). */
export const reportedUsage: Record<Family, Record<'text' | 'stream', TokenUsage>> = {
  openai: {
    text: {
      inputTokens: 5,
      outputTokens: 1,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 6,
    },
    stream: {
      inputTokens: 21,
      outputTokens: 2,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 23,
    },
  },
  anthropic: {
    text: {
      inputTokens: 35,
      outputTokens: 12,
      cachedInputTokens: 10,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 47,
    },
    stream: {
      inputTokens: 42,
      outputTokens: 2,
      cachedInputTokens: 7,
      cacheWriteInputTokens: 5,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 44,
    },
  },
  gemini: {
    text: {
      inputTokens: 20,
      outputTokens: 6,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 26,
    },
    stream: {
      inputTokens: 12,
      outputTokens: 2,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 14,
    },
  },
  responses: {
    text: {
      inputTokens: 9,
      outputTokens: 2,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 11,
    },
    stream: {
      inputTokens: 13,
      outputTokens: 2,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 1,
      totalTokens: 15,
    },
  },
}

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-m', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
const anthropicFrame = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

/** What each upstream family answers, in its own wire format. */
export const upstreamAnswers: Record<
  Family,
  Record<'text' | 'stream' | 'tool' | 'streamTool' | 'error' | 'failing', UpstreamBehaviour>
> = {
  openai: {
    text: {
      kind: 'json',
      body: {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Paris' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      },
    },
    stream: { kind: 'sse', frames: chatStreamFrames(['Par', 'is'], { includeUsage: true }) },
    tool: {
      kind: 'json',
      body: {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      },
    },
    streamTool: {
      kind: 'sse',
      frames: [
        chunk({ role: 'assistant', content: null }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '' },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    },
    error: {
      kind: 'error',
      status: 429,
      body: {
        error: { message: 'Slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
    },
    failing: { kind: 'sse', frames: chatStreamFrames(['Par', 'is', ' never']), failAfter: 3 },
  },
  anthropic: {
    text: { kind: 'json', body: anthropicMessage([{ type: 'text', text: 'Paris' }]) },
    stream: { kind: 'sse', frames: anthropicTextFrames(['Par', 'is']) },
    tool: {
      kind: 'json',
      body: anthropicMessage(
        [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
        { stopReason: 'tool_use' },
      ),
    },
    streamTool: {
      kind: 'sse',
      frames: [
        anthropicFrame('message_start', {
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'm',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 5, output_tokens: 1 },
          },
        }),
        anthropicFrame('content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
        }),
        anthropicFrame('content_block_delta', {
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"city":' },
        }),
        anthropicFrame('content_block_delta', {
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '"Paris"}' },
        }),
        anthropicFrame('content_block_stop', { index: 0 }),
        anthropicFrame('message_delta', {
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 4 },
        }),
        anthropicFrame('message_stop', {}),
      ],
    },
    error: {
      kind: 'error',
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } },
    },
    failing: { kind: 'sse', frames: anthropicTextFrames(['Par', 'is'], { failAfterText: true }) },
  },
  gemini: {
    text: { kind: 'json', body: geminiResponse([{ text: 'Paris' }]) },
    stream: { kind: 'sse', frames: geminiTextFrames(['Par', 'is']) },
    tool: {
      kind: 'json',
      body: geminiResponse([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]),
    },
    streamTool: {
      kind: 'sse',
      frames: [
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' }] }, index: 0 }], modelVersion: 'g' })}\n\n`,
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 4, totalTokenCount: 9 }, modelVersion: 'g' })}\n\n`,
      ],
    },
    error: {
      kind: 'error',
      status: 429,
      body: { error: { code: 429, message: 'Slow down', status: 'RESOURCE_EXHAUSTED' } },
    },
    failing: { kind: 'sse', frames: geminiTextFrames(['Par', 'is'], { failAfter: true }) },
  },
  responses: {
    text: {
      kind: 'json',
      body: responseObject(
        [
          {
            id: 'msg_up0',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Paris', annotations: [], logprobs: [] }],
          },
        ],
        { input: 9, cached: 4, output: 2 },
      ),
    },
    stream: {
      kind: 'sse',
      frames: responsesStreamFrames([{ type: 'message', pieces: ['Par', 'is'] }], {
        input: 13,
        output: 2,
        reasoning: 1,
      }),
    },
    tool: {
      kind: 'json',
      body: responseObject(
        [
          {
            id: 'fc_up0',
            type: 'function_call',
            status: 'completed',
            call_id: 'call_1',
            name: 'get_weather',
            arguments: '{"city":"Paris"}',
          },
        ],
        { input: 9, output: 5 },
      ),
    },
    streamTool: {
      kind: 'sse',
      frames: responsesStreamFrames(
        [
          {
            type: 'function_call',
            callId: 'call_1',
            name: 'get_weather',
            pieces: ['{"city":', '"Paris"}'],
          },
        ],
        { input: 9, output: 5 },
      ),
    },
    error: {
      kind: 'error',
      status: 429,
      body: {
        error: {
          message: 'Rate limit reached for requests. Please try again in 1.5s.',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    },
    failing: {
      kind: 'sse',
      frames: responsesStreamFrames(
        [{ type: 'message', pieces: ['Par', 'is', ' never'] }],
        { input: 1, output: 1 },
        { cut: true },
      ),
      failAfter: 6,
    },
  },
}
