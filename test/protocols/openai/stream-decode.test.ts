import { describe, expect, it } from 'vitest'
import type { StreamEvent, Usage } from '../../../src/canonical/types'
import { reasoningOriginSignature } from '../../../src/protocols/openai/reasoning-origin'
import { decodeOpenAIResponse } from '../../../src/protocols/openai/response'
import { createOpenAIStreamDecoder } from '../../../src/protocols/openai/stream-decode'
import { byteByByte, decodeSseChunks, everySplit, randomSplit } from '../../helpers/streams'
import {
  chunk,
  decodeChunks,
  decodeText,
  header,
  idGenerator,
  openAIFixtures,
  readFixture,
  sse,
} from './stream-helpers'

const start = { type: 'message-start', id: 'chatcmpl-test', model: 'test-model' } as const
const noUsage: Usage = { input: {}, output: {} }
const stop = { unified: 'stop', raw: 'stop' } as const
const toolCalls = { unified: 'tool-calls', raw: 'tool_calls' } as const

function errorOf(events: StreamEvent[]) {
  const last = events.at(-1)
  if (last?.type !== 'error') throw new Error(`expected an error event, got ${last?.type}`)
  return last.error
}

describe('OpenAI stream decoder: fixtures', () => {
  it('decodes a text stream with a comment and the usage chunk', async () => {
    const usage: Usage = {
      input: { total: 19, uncached: 19, cacheRead: 0 },
      output: { total: 6, reasoning: 0 },
    }
    expect(await decodeText(readFixture('text-stream-usage.sse'))).toEqual([
      { type: 'message-start', id: 'chatcmpl-B9xTq8', model: 'gpt-4o-mini-2024-07-18' },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Grüße' },
      { type: 'text-delta', index: 0, delta: ', ' },
      { type: 'text-delta', index: 0, delta: '世界' },
      { type: 'text-delta', index: 0, delta: ' 👋🏽' },
      { type: 'text-delta', index: 0, delta: ' — ok' },
      { type: 'text-end', index: 0 },
      { type: 'usage', usage },
      { type: 'finish', finishReason: stop, usage },
    ])
  })

  it('STR-IN-O-01: decodes two OpenAI parallel calls, the second held whole until the finish', async () => {
    const usage: Usage = {
      input: { total: 84, uncached: 84, cacheRead: 0 },
      output: { total: 47, reasoning: 0 },
    }
    expect(await decodeText(readFixture('tool-calls.sse'))).toEqual([
      { type: 'message-start', id: 'chatcmpl-C2kT7oLq9v', model: 'gpt-4o-mini-2024-07-18' },
      { type: 'tool-call-start', index: 0, id: 'call_Wq1aTgkXvVJ8bN3c', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'city' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '":"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'Mün' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'chen' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_3nB9hXcZr2LpQ7dY', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"timezone":"Europe/Berlin"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'usage', usage },
      { type: 'finish', finishReason: toolCalls, usage },
    ])
  })

  it('STR-IN-O-03: gives calls without arguments `{}`, for "" and for a missing key (bug 14)', async () => {
    expect(await decodeText(readFixture('no-arg-tool.sse'))).toEqual([
      { type: 'message-start', id: 'chatcmpl-C2kNoArgs4x', model: 'gpt-4o-mini-2024-07-18' },
      { type: 'tool-call-start', index: 0, id: 'call_Nf0ArgTime1xYz', name: 'get_current_time' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_Nf0ArgDate2aBc', name: 'get_today' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'finish', finishReason: toolCalls, usage: noUsage },
    ])
  })

  it('STR-IN-O-01: attributes fragments without index or id to the latest call', async () => {
    const usage: Usage = { input: { total: 96, uncached: 96 }, output: { total: 41 } }
    expect(await decodeText(readFixture('tool-call-no-index.sse'))).toEqual([
      { type: 'message-start', id: 'chatcmpl-7e2b4d1a', model: 'llama-3.1-8b-instruct' },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Checking both cities.' },
      { type: 'text-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_a1f3', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '"Oslo"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'call_b2e7', name: 'get_weather' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{"city":"Bergen"}' },
      { type: 'tool-call-end', index: 2 },
      { type: 'usage', usage },
      { type: 'finish', finishReason: toolCalls, usage },
    ])
  })

  it('STR-IN-O-01: decodes calls sent whole in one delta', async () => {
    const usage: Usage = { input: { total: 152, uncached: 152 }, output: { total: 38 } }
    expect(await decodeText(readFixture('tool-call-single-shot.sse'))).toEqual([
      { type: 'message-start', id: 'chatcmpl-417', model: 'llama3.2' },
      { type: 'tool-call-start', index: 0, id: 'call_k2f9x1qz', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Paris"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_p8d3m0vw', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"timezone":"Europe/Paris"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'usage', usage },
      { type: 'finish', finishReason: toolCalls, usage },
    ])
  })

  it('RSN-05, USE-05: decodes DeepSeek reasoning_content and prompt_cache_hit_tokens', async () => {
    const usage: Usage = {
      input: { total: 78, uncached: 14, cacheRead: 64 },
      output: { total: 52, reasoning: 41 },
    }
    expect(await decodeText(readFixture('deepseek-reasoning.sse'))).toEqual([
      {
        type: 'message-start',
        id: '3f1c2a9e-8b7d-4e2f-9a61-0c5d7e8f9a1b',
        model: 'deepseek-reasoner',
      },
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'The user asks' },
      { type: 'reasoning-delta', index: 0, delta: ' whether 9.11 or 9.9' },
      { type: 'reasoning-delta', index: 0, delta: ' is larger. 9.9 = 9.90 > 9.11' },
      { type: 'reasoning-delta', index: 0, delta: ' — größer.' },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: '9.9' },
      { type: 'text-delta', index: 1, delta: ' is larger than 9.11.' },
      { type: 'text-end', index: 1 },
      { type: 'usage', usage },
      { type: 'finish', finishReason: stop, usage },
    ])
  })

  it('USE-05: reads the usage chunk of a vLLM stream with `choices: null`', async () => {
    const usage: Usage = { input: { total: 12, uncached: 12 }, output: { total: 5 } }
    expect(await decodeText(readFixture('vllm-usage-null-choices.sse'))).toEqual([
      {
        type: 'message-start',
        id: 'chatcmpl-9d1f0c3b5a7e4b2c8e6a0f1d',
        model: 'Qwen/Qwen2.5-7B-Instruct',
      },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Hello' },
      { type: 'text-delta', index: 0, delta: ' from' },
      { type: 'text-delta', index: 0, delta: ' vLLM.' },
      { type: 'text-end', index: 0 },
      { type: 'usage', usage },
      { type: 'finish', finishReason: stop, usage },
    ])
  })

  it('decodes the CRLF transcript as the LF one', async () => {
    expect(await decodeText(readFixture('text-stream-usage-crlf.sse'))).toEqual(
      await decodeText(readFixture('text-stream-usage.sse')),
    )
  })
})

describe('OpenAI stream decoder: chunk boundaries (WIRE-ALL-03)', () => {
  it.each(openAIFixtures)('%s gives the same events at every byte split', async (name) => {
    const text = readFixture(name)
    const expected = await decodeText(text)
    for (const chunks of everySplit(text)) expect(await decodeChunks(chunks)).toEqual(expected)
  })

  it.each(openAIFixtures)(
    '%s gives the same events byte by byte and at random splits',
    async (name) => {
      const text = readFixture(name)
      const expected = await decodeText(text)
      expect(await decodeChunks(byteByByte(text))).toEqual(expected)
      for (let seed = 1; seed <= 25; seed += 1) {
        expect(await decodeChunks(randomSplit(text, seed))).toEqual(expected)
      }
    },
  )
})

describe('OpenAI stream decoder: deltas and finish', () => {
  it('opens no block for the role chunk’s empty content, and ignores comments and empty data', async () => {
    const text =
      sse(chunk({ role: 'assistant', content: '', refusal: null })) +
      ': keep-alive\n\ndata: \n\n' +
      sse(chunk({ content: 'hi' }), chunk({}, 'stop'), '[DONE]')
    expect(await decodeText(text)).toEqual([
      start,
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'hi' },
      { type: 'text-end', index: 0 },
      { type: 'finish', finishReason: stop, usage: noUsage },
    ])
  })

  it('RSN-05: reads OpenRouter’s `reasoning` and takes one of two duplicate fields', async () => {
    const events = await decodeText(
      sse(
        chunk({ reasoning: 'think' }),
        chunk({ reasoning_content: ' more', reasoning: ' more' }),
        chunk({ content: 'done' }, 'stop'),
        '[DONE]',
      ),
    )
    expect(events.slice(1, -1)).toEqual([
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'think' },
      { type: 'reasoning-delta', index: 0, delta: ' more' },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'done' },
      { type: 'text-end', index: 1 },
    ])
  })

  it('STR-IN-O-04: splits content and finish in one chunk, and orders reasoning, text, tool calls', async () => {
    const events = await decodeText(
      sse(
        chunk(
          {
            tool_calls: [header(0, 'call_x', 'x', '{}')],
            content: 'text',
            reasoning_content: 'why',
          },
          'tool_calls',
        ),
        '[DONE]',
      ),
    )
    expect(events).toEqual([
      start,
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'why' },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'text' },
      { type: 'text-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'call_x', name: 'x' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 2 },
      { type: 'finish', finishReason: toolCalls, usage: noUsage },
    ])
  })

  it('RR-04: puts refusal text on the finish', async () => {
    const events = await decodeText(
      sse(
        chunk({ role: 'assistant', content: null, refusal: '' }),
        chunk({ refusal: 'I can’t help' }),
        chunk({ refusal: ' with that.' }),
        chunk({}, 'stop'),
        '[DONE]',
      ),
    )
    expect(events).toEqual([
      start,
      { type: 'finish', finishReason: stop, usage: noUsage, refusal: 'I can’t help with that.' },
    ])
  })

  it('merges usage chunks into cumulative snapshots', async () => {
    const events = await decodeText(
      sse(
        {
          ...chunk({ content: 'a' }),
          usage: { prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 4 } },
        },
        chunk({}, 'stop'),
        { ...chunk({}), choices: [], usage: { completion_tokens: 3 } },
        '[DONE]',
      ),
    )
    const merged: Usage = {
      input: { total: 10, uncached: 6, cacheRead: 4 },
      output: { total: 3 },
    }
    expect(events.filter((event) => event.type === 'usage')).toHaveLength(2)
    expect(events.at(-2)).toEqual({ type: 'usage', usage: merged })
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: stop, usage: merged })
  })

  it('emits the finish after the usage chunk, not at the finish chunk (WIRE-ALL-03)', () => {
    const decoder = createOpenAIStreamDecoder({ generateId: idGenerator() })
    const push = (data: object | string) =>
      decoder.push({ type: 'event', data: typeof data === 'string' ? data : JSON.stringify(data) })
    push(chunk({ content: 'x' }))
    expect(push(chunk({}, 'length'))).toEqual([{ type: 'text-end', index: 0 }])
    expect(
      push({ ...chunk({}), choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } }),
    ).toEqual([
      { type: 'usage', usage: { input: { total: 1, uncached: 1 }, output: { total: 2 } } },
    ])
    expect(push('[DONE]')).toEqual([
      {
        type: 'finish',
        finishReason: { unified: 'length', raw: 'length' },
        usage: { input: { total: 1, uncached: 1 }, output: { total: 2 } },
      },
    ])
  })

  it('reads choice 0 only', async () => {
    const text = sse(
      {
        ...chunk({}),
        choices: [
          { index: 1, delta: { content: 'other' }, finish_reason: null },
          { index: 0, delta: { content: 'mine' }, finish_reason: null },
        ],
      },
      chunk({}, 'stop'),
      '[DONE]',
    )
    const deltas = (await decodeText(text)).filter((event) => event.type === 'text-delta')
    expect(deltas).toEqual([{ type: 'text-delta', index: 0, delta: 'mine' }])
  })
})

describe('OpenAI stream decoder: stream end and errors', () => {
  it('STR-END-03: ignores everything after [DONE]', async () => {
    const events = await decodeText(
      sse(chunk({ content: 'a' }, 'stop'), '[DONE]', chunk({ content: 'late' }, 'length')),
    )
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: stop, usage: noUsage })
    expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(1)
  })

  it('reports a body that ends after a finish reason but before [DONE] as an error', async () => {
    // The usage chunk comes after the finish chunk: without [DONE] it may be what was cut off.
    const events = await decodeText(sse(chunk({ content: 'a' }), chunk({}, 'stop')))
    expect(events.map((event) => event.type)).toEqual([
      'message-start',
      'text-start',
      'text-delta',
      'text-end',
      'error',
    ])
    expect(errorOf(events).message).toBe('The upstream stream ended before [DONE].')
  })

  it('STR-OA-06: reports a body that ends without a finish reason as an error', async () => {
    const events = await decodeText(sse(chunk({ content: 'cut sh' })))
    expect(events.map((event) => event.type)).toEqual([
      'message-start',
      'text-start',
      'text-delta',
      'error',
    ])
    const error = errorOf(events)
    expect(error.code).toBe('upstream_error')
    expect(error.message).toBe('The upstream stream ended before [DONE].')
  })

  it('STR-OA-07: finishes as stop, or tool-calls, on [DONE] without a finish reason (pinned)', async () => {
    expect((await decodeText(sse(chunk({ content: 'a' }), '[DONE]'))).at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop' },
      usage: noUsage,
    })
    const tools = await decodeText(sse(chunk({ tool_calls: [header(0, 'call_t', 't')] }), '[DONE]'))
    expect(tools.slice(-2)).toEqual([
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: noUsage },
    ])
  })

  it('reports an empty body, or a bare [DONE], as an error', async () => {
    expect(errorOf(await decodeText('')).message).toBe('The upstream stream ended before [DONE].')
    expect(errorOf(await decodeText(sse('[DONE]'))).message).toBe(
      'The upstream stream ended without any chunk.',
    )
  })

  it('STR-IN-O-06, ERR-S-O: turns a mid-stream `error` payload into an error event and stops', async () => {
    const body = { error: { message: 'Rate limit reached', type: 'rate_limit_error', code: null } }
    const events = await decodeText(
      sse(chunk({ content: 'par' }), body, chunk({ content: 'tial' }, 'stop'), '[DONE]'),
    )
    expect(events.map((event) => event.type)).toEqual([
      'message-start',
      'text-start',
      'text-delta',
      'error',
    ])
    const error = errorOf(events)
    expect(error.code).toBe('upstream_error')
    expect(error.message).toBe('Rate limit reached')
    expect(error.upstream).toEqual({ status: 500, protocol: 'openai', body })
  })

  it('turns an `event: error` frame into an error event', async () => {
    const events = await decodeText(
      sse(chunk({ content: 'a' })) + 'event: error\ndata: {"error":{"message":"Overloaded"}}\n\n',
    )
    expect(errorOf(events).message).toBe('Overloaded')
  })

  it('reports a data payload that is not JSON as an error and stops', async () => {
    const events = await decodeText(
      sse(chunk({ content: 'a' })) + 'data: {"choices":[\n\n' + sse(chunk({}, 'stop'), '[DONE]'),
    )
    expect(events.at(-2)?.type).toBe('text-delta')
    expect(errorOf(events).message).toBe('The upstream sent a stream event that is not JSON.')
  })
})

describe('reasoning origin (ADR 0018)', () => {
  const minimaxDelta = (text: string) => ({
    reasoning_details: [
      {
        type: 'reasoning.text',
        id: 'reasoning-text-1',
        format: 'MiniMax-response-v1',
        index: 0,
        text,
      },
    ],
  })
  const body = sse(
    chunk({ role: 'assistant', content: null }),
    chunk(minimaxDelta('Weigh ')),
    chunk(minimaxDelta('“both” — 🧠')),
    chunk({ content: 'Done.' }),
    chunk({}, 'stop'),
    '[DONE]',
  )

  it('reads MiniMax’s reasoning_details deltas, and signs the block with field, model and digest at every split', async () => {
    const expected = reasoningOriginSignature(
      'reasoning_details',
      'MiniMax-M2',
      'Weigh “both” — 🧠',
      {
        type: 'reasoning.text',
        id: 'reasoning-text-1',
        format: 'MiniMax-response-v1',
        index: 0,
      },
    )
    for (const chunks of everySplit(body)) {
      const events = await decodeSseChunks(
        chunks,
        createOpenAIStreamDecoder({ generateId: idGenerator(), model: 'MiniMax-M2' }),
      )
      const reasoning = events.filter((event) => event.type.startsWith('reasoning'))
      expect(reasoning).toEqual([
        { type: 'reasoning-start', index: 0 },
        { type: 'reasoning-delta', index: 0, delta: 'Weigh ' },
        { type: 'reasoning-delta', index: 0, delta: '“both” — 🧠' },
        { type: 'reasoning-end', index: 0, signature: expected },
      ])
    }
  })

  it('signs DeepSeek’s reasoning_content with the field of its first delta', async () => {
    const events = await decodeSseChunks(
      [new TextEncoder().encode(readFixture('deepseek-reasoning.sse'))],
      createOpenAIStreamDecoder({ generateId: idGenerator(), model: 'deepseek-reasoner' }),
    )
    const end = events.find((event) => event.type === 'reasoning-end')
    const text = 'The user asks whether 9.11 or 9.9 is larger. 9.9 = 9.90 > 9.11 — größer.'
    expect(end).toEqual({
      type: 'reasoning-end',
      index: 0,
      signature: reasoningOriginSignature('reasoning_content', 'deepseek-reasoner', text),
    })
  })

  it('decodes an unstreamed answer’s reasoning in each field with its origin', () => {
    const answer = (message: object) => ({
      id: 'x',
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'ok', ...message },
          finish_reason: 'stop',
        },
      ],
    })
    for (const [field, message] of [
      ['reasoning_content', { reasoning_content: 'why' }],
      ['reasoning', { reasoning_content: '', reasoning: 'why' }],
      [
        'reasoning_details',
        {
          reasoning_details: [
            { type: 'reasoning.summary', summary: 's' },
            { type: 'reasoning.text', text: 'why' },
          ],
        },
      ],
    ] as const) {
      const decoded = decodeOpenAIResponse(answer(message), { model: 'm1' })
      const detail = field === 'reasoning_details' ? { type: 'reasoning.text' } : undefined
      expect(decoded.content[0]).toEqual({
        type: 'reasoning',
        text: 'why',
        signature: reasoningOriginSignature(field, 'm1', 'why', detail),
      })
    }
  })
})
