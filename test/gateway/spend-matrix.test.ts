import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import type { TokenUsage } from '../../src/extend'
import { anthropicApiKey, anthropicBaseUrl, anthropicHandlers } from '../helpers/anthropic-upstream'
import { buildGateway, gatewayUrl, keys } from '../helpers/gateway'
import {
  gatewayHandler,
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
} from '../helpers/gemini-upstream'
import {
  responseObject,
  responsesApiKey,
  responsesBaseUrl,
  responsesHandlers,
  responsesStreamFrames,
} from '../helpers/responses-upstream'
import {
  chatCompletion,
  chatStreamFrames,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'
import { matrixClients } from './matrix/clients'
import { families, type Family } from './matrix/upstream-answers'

/**
 * Spend on every path: each vendor's usage with cache reads, cache writes (Anthropic's 5-minute
 * and 1-hour ones apart, OpenAI's `cache_write_tokens`) and reasoning tokens, answered as JSON and
 * as a stream, to each client protocol through its official SDK — passthrough on the diagonal and
 * for Responses on a `responses: true` upstream, translated everywhere else. Every record must
 * carry each token category as the vendor reported it and the cost at the upstream model's price,
 * to the nano-dollar (the figures below are worked out by hand from the vendors' price pages).
 */
const openaiUpstream = createMockUpstream()
const calls: Record<Family, UpstreamCallRecord[]> = {
  openai: openaiUpstream.calls,
  anthropic: [],
  gemini: [],
  responses: [],
}
const behaviour: Record<Family, UpstreamBehaviour> = {
  openai: { kind: 'json', body: {} },
  anthropic: { kind: 'json', body: {} },
  gemini: { kind: 'json', body: {} },
  responses: { kind: 'json', body: {} },
}
let handler: GatewayHandler
let built: ReturnType<typeof buildGateway>
openaiUpstream.server.use(
  ...anthropicHandlers({ calls: calls.anthropic, behaviour: () => behaviour.anthropic }),
  ...geminiHandlers({ calls: calls.gemini, behaviour: () => behaviour.gemini }),
  ...responsesHandlers({ calls: calls.responses, behaviour: () => behaviour.responses }),
  gatewayHandler(gatewayUrl, () => handler),
)

/** The upstream model of each group: one with its own price for each usage shape. */
const upstreamModel: Record<Family, string> = {
  openai: 'gpt-5.6-luna',
  anthropic: 'claude-3-7-sonnet-20250219',
  gemini: 'gemini-2.5-flash',
  responses: 'gpt-5.4',
}

beforeAll(() => {
  openaiUpstream.server.listen({ onUnhandledRequest: 'error' })
  const group = (id: string, protocol: 'openai' | 'anthropic' | 'gemini', family: Family) => ({
    id,
    protocol,
    models: [{ name: `${family}-model`, upstreamModel: upstreamModel[family] }],
  })
  built = buildGateway({
    groups: [
      {
        ...group('o', 'openai', 'openai'),
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        ...group('a', 'anthropic', 'anthropic'),
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        ...group('g', 'gemini', 'gemini'),
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
      {
        ...group('r', 'openai', 'responses'),
        upstreams: [{ baseUrl: responsesBaseUrl, apiKey: responsesApiKey, responses: true }],
      },
    ],
    keys: [{ key: keys.main }],
  })
  handler = built.gateway
})
afterAll(() => openaiUpstream.server.close())

/** Every token category apart, `inputTokens` inclusive. */
function usage(parts: {
  uncached: number
  cached: number
  written?: number
  writtenHour?: number
  output: number
  reasoning: number
}): TokenUsage {
  const input = parts.uncached + parts.cached + (parts.written ?? 0) + (parts.writtenHour ?? 0)
  return {
    inputTokens: input,
    outputTokens: parts.output,
    cachedInputTokens: parts.cached,
    cacheWriteInputTokens: parts.written ?? 0,
    cacheWrite1hInputTokens: parts.writtenHour ?? 0,
    reasoningTokens: parts.reasoning,
    totalTokens: input + parts.output,
  }
}

/** What each upstream reports, as the record must carry it, and what it costs (nano-USD). */
const expected: Record<Family, { usage: TokenUsage; nanoUsd: number; row: string }> = {
  // GPT-5.6 Luna: $1 input, $0.10 cached, $1.25 cache write, $6 output (reasoning is output).
  openai: {
    usage: usage({ uncached: 834, cached: 9_984, written: 8, output: 58, reasoning: 50 }),
    nanoUsd: 834 * 1000 + 9_984 * 100 + 8 * 1250 + 58 * 6000,
    row: 'gpt-5.6-luna',
  },
  // Claude Sonnet 3.7: $3 input, $0.30 read, $3.75 5-minute write, $6 1-hour write, $15 output.
  anthropic: {
    usage: usage({
      uncached: 3,
      cached: 100,
      written: 12_000,
      writtenHour: 304,
      output: 550,
      reasoning: 200,
    }),
    nanoUsd: 3 * 3000 + 100 * 300 + 12_000 * 3750 + 304 * 6000 + 550 * 15_000,
    row: 'claude-3-7-sonnet',
  },
  // Gemini 2.5 Flash: $0.30 input, $0.03 cached, $2.50 output, thoughts included in output.
  gemini: {
    usage: usage({ uncached: 600, cached: 400, output: 100, reasoning: 70 }),
    nanoUsd: 600 * 300 + 400 * 30 + 100 * 2500,
    row: 'gemini-2.5-flash',
  },
  // GPT-5.4 through the Responses API: $2.50 input, $0.25 cached, $15 output.
  responses: {
    usage: usage({ uncached: 500, cached: 1500, output: 300, reasoning: 250 }),
    nanoUsd: 500 * 2500 + 1500 * 250 + 300 * 15_000,
    row: 'gpt-5.4',
  },
}

const openaiUsage = {
  prompt_tokens: 10_826,
  completion_tokens: 58,
  total_tokens: 10_884,
  prompt_tokens_details: { cached_tokens: 9_984, cache_write_tokens: 8, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 50, audio_tokens: 0 },
}
const anthropicStart = {
  input_tokens: 3,
  cache_read_input_tokens: 100,
  cache_creation_input_tokens: 12_304,
  cache_creation: { ephemeral_5m_input_tokens: 12_000, ephemeral_1h_input_tokens: 304 },
  output_tokens: 1,
}
/** `message_delta` repeats the totals without the split, as Anthropic's stream does. */
const anthropicDelta = {
  input_tokens: 3,
  cache_read_input_tokens: 100,
  cache_creation_input_tokens: 12_304,
  output_tokens: 550,
  output_tokens_details: { thinking_tokens: 200 },
}
const geminiUsage = {
  promptTokenCount: 1000,
  cachedContentTokenCount: 400,
  candidatesTokenCount: 30,
  thoughtsTokenCount: 70,
  totalTokenCount: 1100,
}
const responsesUsage = {
  input_tokens: 2000,
  input_tokens_details: { cached_tokens: 1500 },
  output_tokens: 300,
  output_tokens_details: { reasoning_tokens: 250 },
  total_tokens: 2300,
}

const anthropicFrame = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
const geminiChunk = (text: string, usageMetadata: object, finish?: string) =>
  `data: ${JSON.stringify({
    candidates: [
      {
        content: { role: 'model', parts: [{ text }] },
        index: 0,
        ...(finish ? { finishReason: finish } : {}),
      },
    ],
    usageMetadata,
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp-spend',
  })}\r\n\r\n`

/** Each upstream's answer, JSON and stream, with the rich usage above. */
const answers: Record<Family, Record<'json' | 'stream', UpstreamBehaviour>> = {
  openai: {
    json: { kind: 'json', body: { ...chatCompletion('Paris'), usage: openaiUsage } },
    stream: {
      kind: 'sse',
      frames: chatStreamFrames(['Par', 'is'], { includeUsage: true, usage: openaiUsage }),
    },
  },
  anthropic: {
    json: {
      kind: 'json',
      body: {
        id: 'msg_spend',
        type: 'message',
        role: 'assistant',
        model: upstreamModel.anthropic,
        content: [{ type: 'text', text: 'Paris' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: {
          ...anthropicStart,
          output_tokens: 550,
          output_tokens_details: { thinking_tokens: 200 },
        },
      },
    },
    stream: {
      kind: 'sse',
      frames: [
        anthropicFrame('message_start', {
          message: {
            id: 'msg_spend_stream',
            type: 'message',
            role: 'assistant',
            model: upstreamModel.anthropic,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: anthropicStart,
          },
        }),
        anthropicFrame('content_block_start', {
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
        anthropicFrame('content_block_delta', {
          index: 0,
          delta: { type: 'text_delta', text: 'Par' },
        }),
        anthropicFrame('content_block_delta', {
          index: 0,
          delta: { type: 'text_delta', text: 'is' },
        }),
        anthropicFrame('content_block_stop', { index: 0 }),
        anthropicFrame('message_delta', {
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: anthropicDelta,
        }),
        anthropicFrame('message_stop', {}),
      ],
    },
  },
  gemini: {
    json: {
      kind: 'json',
      body: {
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'Paris' }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: geminiUsage,
        modelVersion: 'gemini-2.5-flash',
        responseId: 'resp-spend',
      },
    },
    stream: {
      kind: 'sse',
      frames: [
        geminiChunk('Par', {
          promptTokenCount: 1000,
          cachedContentTokenCount: 400,
          totalTokenCount: 1000,
        }),
        geminiChunk('is', geminiUsage, 'STOP'),
      ],
    },
  },
  responses: {
    json: {
      kind: 'json',
      body: {
        ...responseObject(
          [
            {
              id: 'msg_spend',
              type: 'message',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Paris' }],
            },
          ],
          { input: 2000, output: 300 },
        ),
        usage: responsesUsage,
      },
    },
    stream: {
      kind: 'sse',
      frames: responsesStreamFrames([{ type: 'message', pieces: ['Par', 'is'] }], {
        input: 2000,
        cached: 1500,
        output: 300,
        reasoning: 250,
      }),
    },
  },
}

const clients = matrixClients(() => handler)
const cells = families.flatMap((client) => families.map((group) => [client, group] as const))

describe.each(cells)('%s client × %s group', (client, group) => {
  const model = `${group}-model`
  const answer = (kind: 'json' | 'stream') => {
    behaviour[group] = answers[group][kind]
    if (group === 'openai') openaiUpstream.answer(answers.openai[kind])
  }
  const check = () => {
    const record = built.meter.records().at(-1)!
    expect(record).toMatchObject({
      outcome: 'ok',
      estimated: false,
      upstreamModel: upstreamModel[group],
    })
    expect(record.usage).toEqual(expected[group].usage)
    expect(record.cost).toMatchObject({
      nanoUsd: expected[group].nanoUsd,
      listNanoUsd: expected[group].nanoUsd,
      price: { model: expected[group].row, multiplier: 1 },
    })
    // The request's event carries the same cost.
    expect(built.events.at(-1)?.cost).toEqual(record.cost)
  }

  it('JSON: meters every token category and the cost at the upstream model price', async () => {
    answer('json')
    expect(await clients[client].text(model)).toBe('Paris')
    check()
  })

  it('stream: meters every token category and the cost at the upstream model price', async () => {
    answer('stream')
    expect(await clients[client].stream(model)).toBe('Paris')
    check()
  })
})
