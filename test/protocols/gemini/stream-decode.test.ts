import { describe, expect, it } from 'vitest'
import type { StreamEvent, Usage } from '../../../src/canonical/types'
import { createGeminiStreamDecoder } from '../../../src/protocols/gemini/stream-decode'
import {
  decodeGeminiToolCallId,
  encodeGeminiToolCallId,
} from '../../../src/protocols/gemini/tool-call-id'
import { byteByByte, everySplit, randomSplit } from '../../helpers/streams'
import {
  decodeChunks,
  decodeText,
  delimiters,
  geminiFixtures,
  idGenerator,
  readFixture,
  response,
  sse,
  withLineEnd,
} from './stream-helpers'

const start = { type: 'message-start', id: 'resp-test', model: 'gemini-test' } as const
const noUsage: Usage = { input: {}, output: {} }
const stop = { unified: 'stop', raw: 'STOP' } as const
const toolCalls = { unified: 'tool-calls', raw: 'STOP' } as const
const toolSignature = 'XHwpmf2v5ZMlPNZUr0361xQnoK6z/ukjL4ryIR+e5JHFsQvstVY7/B5vk0J+y8g='
const thoughtSignature = '/ilV5c2ORtyO1LfCdk0qWk12dwb4XYaQAkrWvaNAG+nIy8w='

function errorOf(events: StreamEvent[]) {
  const last = events.at(-1)
  if (last?.type !== 'error') throw new Error(`expected an error event, got ${last?.type}`)
  return last.error
}

/** Pushes payloads straight into a decoder, one message each, and returns the events per push. */
function pushAll(...payloads: Array<object | string>): StreamEvent[][] {
  const decoder = createGeminiStreamDecoder({ generateId: idGenerator() })
  const pushes = payloads.map((payload) =>
    decoder.push({
      type: 'event',
      data: typeof payload === 'string' ? payload : JSON.stringify(payload),
    }),
  )
  return [...pushes, decoder.end()]
}

describe('Gemini stream decoder: fixtures', () => {
  it('RESP-G-01: decodes a text stream whose usage grows event by event', async () => {
    const early: Usage = { input: { total: 12, uncached: 12 }, output: {} }
    const final: Usage = { input: { total: 12, uncached: 12 }, output: { total: 11 } }
    expect(await decodeText(readFixture('text.sse'))).toEqual([
      {
        type: 'message-start',
        id: 'pEn9aLz3Ks-MkdUPn5ypsQw',
        model: 'gemini-2.5-flash',
        usage: early,
      },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Grüße aus ' },
      { type: 'usage', usage: early },
      { type: 'text-delta', index: 0, delta: '東京 👋🏽' },
      { type: 'usage', usage: early },
      { type: 'text-delta', index: 0, delta: ' — how can I help?' },
      { type: 'text-end', index: 0 },
      { type: 'usage', usage: final },
      { type: 'finish', finishReason: stop, usage: final },
    ])
  })

  it('STR-GO-03, STR-GO-05, RESP-03, TOOL-H-09: decodes Gemini 3 calls with STOP in a later event (bug 3)', async () => {
    const early: Usage = {
      input: { total: 58, uncached: 58 },
      output: { total: 74, reasoning: 74 },
    }
    const final: Usage = {
      input: { total: 58, uncached: 58 },
      output: { total: 96, reasoning: 74 },
    }
    const events = await decodeText(readFixture('tool-call.sse'))
    expect(events).toEqual([
      {
        type: 'message-start',
        id: 'kU5YaPj0Ap6vz7IPxK2hqAg',
        model: 'gemini-3-pro-preview',
        usage: early,
      },
      {
        type: 'tool-call-start',
        index: 0,
        id: encodeGeminiToolCallId(toolSignature, 'gen-1'),
        name: 'get_weather',
        signature: { protocol: 'gemini', value: toolSignature },
      },
      {
        type: 'tool-call-delta',
        index: 0,
        argumentsDelta: '{"location":"Zürich, CH","unit":"celsius"}',
      },
      { type: 'tool-call-end', index: 0 },
      // Only the first call of a parallel group carries a signature; a call without `args` is `{}`.
      { type: 'tool-call-start', index: 1, id: 'gen-2', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'usage', usage: early },
      { type: 'usage', usage: final },
      { type: 'finish', finishReason: toolCalls, usage: final },
    ])
    const first = events[1]
    if (first?.type !== 'tool-call-start') throw new Error('expected a tool call')
    expect(first.id).toMatch(/^[a-zA-Z0-9_-]+$/)
    expect(decodeGeminiToolCallId(first.id)).toEqual({ signature: toolSignature, id: 'gen-1' })
  })

  it('RR-02, STR-GA-02: decodes thought parts, the signature part after them and cached tokens', async () => {
    const input = { total: 2070, uncached: 22, cacheRead: 2048 }
    const early: Usage = { input, output: {} }
    const thinking: Usage = { input, output: { total: 45, reasoning: 45 } }
    const final: Usage = { input, output: { total: 54, reasoning: 45 } }
    expect(await decodeText(readFixture('thinking.sse'))).toEqual([
      {
        type: 'message-start',
        id: 'Xq1laKCwDsGxnsEP_vKt2Ak',
        model: 'gemini-2.5-flash',
        usage: early,
      },
      { type: 'reasoning-start', index: 0 },
      {
        type: 'reasoning-delta',
        index: 0,
        delta: '**Comparing decimals**\n\nThe user asks whether 9.11 or 9.9 is larger. ',
      },
      { type: 'usage', usage: early },
      { type: 'reasoning-delta', index: 0, delta: '9.9 = 9.90 > 9.11 — größer.' },
      { type: 'usage', usage: thinking },
      {
        type: 'reasoning-end',
        index: 0,
        signature: { protocol: 'gemini', value: thoughtSignature },
      },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: '9.9 is larger' },
      { type: 'usage', usage: thinking },
      { type: 'text-delta', index: 1, delta: ' than 9.11.' },
      { type: 'text-end', index: 1 },
      { type: 'usage', usage: final },
      { type: 'finish', finishReason: stop, usage: final },
    ])
  })
})

describe('Gemini stream decoder: framing (WIRE-G-01, WIRE-ALL-03)', () => {
  const cases = geminiFixtures.flatMap((name) =>
    Object.entries(delimiters).map(([label, lineEnd]) => ({ name, label, lineEnd })),
  )

  it.each(cases)('WIRE-G-01: $name with $label line ends decodes as with LF', async (entry) => {
    const text = withLineEnd(readFixture(entry.name), entry.lineEnd)
    expect(await decodeText(text)).toEqual(await decodeText(readFixture(entry.name)))
  })

  it.each(cases)(
    'WIRE-ALL-03: $name with $label line ends gives the same events at every byte split',
    async (entry) => {
      const text = withLineEnd(readFixture(entry.name), entry.lineEnd)
      const expected = await decodeText(readFixture(entry.name))
      for (const chunks of everySplit(text)) expect(await decodeChunks(chunks)).toEqual(expected)
    },
  )

  it.each(cases)(
    'WIRE-ALL-03: $name with $label line ends gives the same events byte by byte and at random splits',
    async (entry) => {
      const text = withLineEnd(readFixture(entry.name), entry.lineEnd)
      const expected = await decodeText(readFixture(entry.name))
      expect(await decodeChunks(byteByByte(text))).toEqual(expected)
      for (let seed = 1; seed <= 25; seed += 1) {
        expect(await decodeChunks(randomSplit(text, seed))).toEqual(expected)
      }
    },
  )

  it('WIRE-ALL-01: ignores comments and empty data', async () => {
    const text =
      ': keep-alive\n\n' +
      sse(response([{ text: 'hi' }])) +
      'data: \n\n' +
      sse(response([], { finishReason: 'STOP' }))
    expect(await decodeText(text)).toEqual([
      start,
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'hi' },
      { type: 'text-end', index: 0 },
      { type: 'finish', finishReason: stop, usage: noUsage },
    ])
  })
})

describe('Gemini stream decoder: parts', () => {
  it('STR-GO-02: continues one text block across events and opens nothing for empty text', () => {
    const [first, second, third, end] = pushAll(
      response([{ text: 'Hel' }, { text: '' }]),
      response([{ text: 'lo' }]),
      response([{ text: '' }], { finishReason: 'STOP' }),
    )
    expect(first).toEqual([
      start,
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Hel' },
    ])
    expect(second).toEqual([{ type: 'text-delta', index: 0, delta: 'lo' }])
    expect(third).toEqual([{ type: 'text-end', index: 0 }])
    expect(end).toEqual([{ type: 'finish', finishReason: stop, usage: noUsage }])
  })

  it('numbers blocks in order: thoughts, text, a call, more text', () => {
    const events = pushAll(
      response([{ text: 'why', thought: true }, { text: 'so' }]),
      response([{ functionCall: { name: 'f', args: { a: 1 }, id: 'fc_1' } }, { text: 'then' }], {
        finishReason: 'STOP',
      }),
    ).flat()
    expect(events).toEqual([
      start,
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'why' },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'so' },
      { type: 'text-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'fc_1', name: 'f' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{"a":1}' },
      { type: 'tool-call-end', index: 2 },
      { type: 'text-start', index: 3 },
      { type: 'text-delta', index: 3, delta: 'then' },
      { type: 'text-end', index: 3 },
      { type: 'finish', finishReason: toolCalls, usage: noUsage },
    ])
  })

  it('STR-GO-05: STOP in an event after the call still finishes as tool-calls (bug 3)', () => {
    const [call, finish, end] = pushAll(
      response([{ functionCall: { name: 'lookup', args: { q: 'x' } }, thoughtSignature: 'c2ln' }]),
      response([{ text: '' }], { finishReason: 'STOP' }),
    )
    expect(call?.map((event) => event.type)).toEqual([
      'message-start',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
    ])
    expect(finish).toEqual([])
    expect(end).toEqual([{ type: 'finish', finishReason: toolCalls, usage: noUsage }])
  })

  it('keeps other finish reasons after a call: MAX_TOKENS stays length', () => {
    const events = pushAll(
      response([{ functionCall: { name: 'f' } }]),
      response([], { finishReason: 'MAX_TOKENS' }),
    ).flat()
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'length', raw: 'MAX_TOKENS' },
      usage: noUsage,
    })
  })

  it('TOOL-H-09: keeps a call id Gemini sent and makes generated ids id-safe', () => {
    const decoder = createGeminiStreamDecoder({ generateId: () => 'req:1/ä' })
    const events = decoder.push({
      type: 'event',
      data: JSON.stringify({
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { functionCall: { name: 'a', args: {}, id: 'call-abc_1' } },
                { functionCall: { name: 'b', args: {} }, thoughtSignature: 'AB+/' },
              ],
            },
          },
        ],
      }),
    })
    const ids = events.flatMap((event) => (event.type === 'tool-call-start' ? [event.id] : []))
    expect(ids).toEqual(['call-abc_1', encodeGeminiToolCallId('AB+/', 'req_1__')])
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/)
    // No responseId: the message id is generated too.
    expect(events[0]).toEqual({ type: 'message-start', id: 'req:1/ä', model: '' })
  })

  it('RESP-03: gives `{}` for absent, null or non-object args', () => {
    const deltas = pushAll(
      response([
        { functionCall: { name: 'a' } },
        { functionCall: { name: 'b', args: null } },
        { functionCall: { name: 'c', args: [1] } },
      ]),
    )
      .flat()
      .filter((event) => event.type === 'tool-call-delta')
    expect(deltas.map((event) => event.argumentsDelta)).toEqual(['{}', '{}', '{}'])
  })

  it('STR-GA-02: a signature on a thought part, or on an empty part while thoughts are open, ends the block', () => {
    const onThought = pushAll(
      response([{ text: 'a', thought: true, thoughtSignature: 'one' }]),
      response([{ text: 'b', thought: true }, { text: 'answer' }], { finishReason: 'STOP' }),
    ).flat()
    expect(onThought.find((event) => event.type === 'reasoning-end')).toEqual({
      type: 'reasoning-end',
      index: 0,
      signature: { protocol: 'gemini', value: 'one' },
    })
    const trailing = pushAll(
      response([{ text: 'a', thought: true }]),
      response([{ text: '', thoughtSignature: 'two' }], { finishReason: 'STOP' }),
    ).flat()
    expect(trailing.slice(1)).toEqual([
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'a' },
      {
        type: 'reasoning-end',
        index: 0,
        signature: { protocol: 'gemini', value: 'two' },
      },
      { type: 'finish', finishReason: stop, usage: noUsage },
    ])
  })

  it('drops a signature that follows text, with no thoughts open (only calls need theirs back)', () => {
    const events = pushAll(
      response([{ text: 'answer' }]),
      response([{ text: '', thoughtSignature: 'late' }], { finishReason: 'STOP' }),
    ).flat()
    expect(events.slice(1)).toEqual([
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'answer' },
      { type: 'text-end', index: 0 },
      { type: 'finish', finishReason: stop, usage: noUsage },
    ])
  })

  it('skips parts with no canonical place and reads candidate 0 only', () => {
    const events = pushAll({
      candidates: [
        {
          index: 1,
          content: { role: 'model', parts: [{ text: 'other' }] },
          finishReason: 'SAFETY',
        },
        {
          index: 0,
          content: {
            role: 'model',
            parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }, { text: 'mine' }],
          },
          finishReason: 'STOP',
        },
      ],
    }).flat()
    expect(events.filter((event) => event.type === 'text-delta')).toEqual([
      { type: 'text-delta', index: 0, delta: 'mine' },
    ])
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: stop })
  })
})

describe('Gemini stream decoder: usage and finish', () => {
  it('STR-GO-04: merges cumulative usageMetadata, later fields winning', () => {
    const events = pushAll(
      response([{ text: 'a' }], { usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 } }),
      response([], {
        finishReason: 'STOP',
        usageMetadata: { candidatesTokenCount: 3, thoughtsTokenCount: 2, totalTokenCount: 15 },
      }),
    ).flat()
    const final: Usage = {
      input: { total: 10, uncached: 10 },
      output: { total: 5, reasoning: 2 },
    }
    expect(events.filter((event) => event.type === 'usage')).toHaveLength(2)
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: stop, usage: final })
  })

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['RECITATION', 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['OTHER', 'other'],
  ] as const)('FIN: finishReason %s finishes as %s', (raw, unified) => {
    const events = pushAll(response([{ text: 'x' }], { finishReason: raw })).flat()
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified, raw },
      usage: noUsage,
    })
  })

  it('STR-GO-07: finishes a prompt blocked before any candidate as content-filter', () => {
    const events = pushAll({
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
      modelVersion: 'gemini-test',
      responseId: 'resp-test',
    }).flat()
    const usage: Usage = { input: { total: 7, uncached: 7 }, output: {} }
    expect(events).toEqual([
      { ...start, usage },
      { type: 'usage', usage },
      {
        type: 'finish',
        finishReason: { unified: 'content-filter', raw: 'PROHIBITED_CONTENT' },
        usage,
      },
    ])
  })

  it('STR-GO-06: reports a body that ends without a finish reason as an error', async () => {
    const events = await decodeText(sse(response([{ text: 'cut sh' }])))
    expect(events.map((event) => event.type)).toEqual([
      'message-start',
      'text-start',
      'text-delta',
      'error',
    ])
    const error = errorOf(events)
    expect(error.code).toBe('upstream_error')
    expect(error.message).toBe('The upstream stream ended without a finish reason.')
    expect(errorOf(await decodeText('')).message).toBe(
      'The upstream stream ended without a finish reason.',
    )
  })
})

describe('Gemini stream decoder: errors (ERR-S-G)', () => {
  it.each([
    [429, 'RESOURCE_EXHAUSTED', 'rate_limited', 429],
    [503, 'UNAVAILABLE', 'overloaded', 503],
    [500, 'INTERNAL', 'upstream_error', 500],
    [400, 'INVALID_ARGUMENT', 'upstream_error', 400],
  ] as const)(
    'turns a %i %s payload into a %s error event and stops',
    (code, status, gateway, http) => {
      const body = { error: { code, message: `${status} happened`, status } }
      const [first, error, after, end] = pushAll(
        response([{ text: 'par' }]),
        body,
        response([{ text: 'tial' }], { finishReason: 'STOP' }),
      )
      expect(first?.map((event) => event.type)).toEqual([
        'message-start',
        'text-start',
        'text-delta',
      ])
      const failure = errorOf(error ?? [])
      expect(failure.code).toBe(gateway)
      expect(failure.status).toBe(http)
      expect(failure.message).toBe(`${status} happened`)
      expect(failure.upstream).toEqual({ status: http, body, protocol: 'gemini' })
      expect(after).toEqual([])
      expect(end).toEqual([])
    },
  )

  it('defaults a payload without a code to 500 (503 when UNAVAILABLE)', () => {
    expect(errorOf(pushAll({ error: { message: 'boom' } })[0] ?? []).status).toBe(500)
    expect(errorOf(pushAll({ error: { status: 'UNAVAILABLE' } })[0] ?? [])).toMatchObject({
      code: 'overloaded',
      status: 503,
      message: 'The upstream reported an error in the stream.',
    })
  })

  it('reads an error payload sent through the SSE reader, with or without a leading event', async () => {
    const body = {
      error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' },
    }
    const events = await decodeText(sse(response([{ text: 'a' }]), body))
    expect(errorOf(events).message).toBe('Internal error encountered.')
    expect(errorOf(await decodeText(sse(body))).message).toBe('Internal error encountered.')
  })

  it('reads Google’s own form, bare JSON without `data:` (one line or pretty-printed), through the SSE reader', async () => {
    const body = {
      error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' },
    }
    for (const bare of [JSON.stringify(body), JSON.stringify(body, null, 2)]) {
      for (const lineEnd of Object.values(delimiters)) {
        const text = withLineEnd(sse(response([{ text: 'a' }])) + bare + '\n', lineEnd)
        const events = await decodeText(text)
        expect(events.map((event) => event.type)).toEqual([
          'message-start',
          'text-start',
          'text-delta',
          'error',
        ])
        expect(errorOf(events)).toMatchObject({ code: 'upstream_error', status: 500 })
        expect(errorOf(events).message).toBe('Internal error encountered.')
      }
    }
  })

  it('reports a data payload that is not a JSON object as an error and stops', () => {
    const [, broken, after] = pushAll(response([{ text: 'a' }]), '{"candidates":[', response([]))
    expect(errorOf(broken ?? []).message).toBe('The upstream sent a stream event that is not JSON.')
    expect(after).toEqual([])
    expect(errorOf(pushAll('[1]')[0] ?? []).message).toBe(
      'The upstream sent a malformed stream event.',
    )
  })
})
