import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { plainTextDelta } from '../../../src/protocols/anthropic/plain-text-delta'
import { createAnthropicStreamDecoder } from '../../../src/protocols/anthropic/stream-decode'

const delta = (index: unknown, text: unknown) =>
  JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })

describe('plainTextDelta: a text delta read without parsing it', () => {
  it('gives exactly what JSON.parse reads, or leaves the event to the parse', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.string({ unit: 'binary', maxLength: 10 }),
      fc.constantFrom('', 'a"b', 'a\\b', '\n', '\u0001', '}}', '"}}', '\ud800'),
    )
    const variant = fc.constantFrom(
      'plain',
      'spaced',
      'extra',
      'other-index',
      'trailing',
      'thinking',
    )
    fc.assert(
      fc.property(text, fc.nat(20), variant, (value, index, form) => {
        let data = delta(index, value)
        if (form === 'spaced') data = data.replace(',"delta"', ', "delta"')
        if (form === 'extra') data = data.replace('"}}', '","x":1}}')
        if (form === 'other-index') data = delta(index + 1, value)
        if (form === 'trailing') data = `${data} `
        if (form === 'thinking') data = data.replace('text_delta', 'thinking_delta')
        const fast = plainTextDelta(data, index)
        if (fast === undefined) return
        expect(JSON.parse(data)).toEqual({
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: fast },
        })
        expect(form).toBe('plain')
      }),
      { numRuns: 5000 },
    )
  })

  it("reads Anthropic's own text deltas without the parse", () => {
    expect(plainTextDelta(delta(0, 'Hello, world'), 0)).toBe('Hello, world')
    expect(plainTextDelta(delta(12, ' é 😀 中'), 12)).toBe(' é 😀 中')
    expect(plainTextDelta(delta(0, 'say "hi"'), 0)).toBeUndefined()
    expect(plainTextDelta(delta(0, 'x'), '0')).toBeUndefined()
  })

  it('decodes a stream the same whether its deltas take the fast path or not', () => {
    const events = (texts: string[], eventNames: boolean) => {
      const decoder = createAnthropicStreamDecoder()
      const frame = (name: string, data: object | string) => ({
        type: 'event' as const,
        ...(eventNames ? { event: name } : {}),
        data: typeof data === 'string' ? data : JSON.stringify(data),
      })
      return [
        frame('message_start', {
          type: 'message_start',
          message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 3 } },
        }),
        frame('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
        ...texts.map((text) => frame('content_block_delta', delta(0, text))),
        frame('content_block_stop', { type: 'content_block_stop', index: 0 }),
        frame('message_stop', { type: 'message_stop' }),
      ].flatMap((message) => decoder.push(message))
    }
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 6 }),
        fc.boolean(),
        (texts, names) => {
          const decoded = events(texts, names)
          const deltas = decoded.filter((event) => event.type === 'text-delta')
          expect(deltas.map((event) => (event as { delta: string }).delta)).toEqual(
            texts.filter((text) => text !== ''),
          )
          expect(decoded.at(-1)?.type).toBe('finish')
        },
      ),
      { numRuns: 500 },
    )
  })
})
