import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { StreamEvent } from '../../../src/canonical/types'
import { createResponsesStreamDecoder } from '../../../src/protocols/responses/stream-decode'
import { decodeSseChunks, everySplit, idGenerator, randomSplit } from '../../helpers/streams'

const fixtures = [
  'text.sse',
  'reasoning-tool-call.sse',
  'custom-tool-call.sse',
  'error-mid-stream.sse',
  'incomplete.sse',
] as const

function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/responses/${name}`, import.meta.url), 'utf8')
}

const decode = (chunks: readonly Uint8Array[]) =>
  decodeSseChunks(chunks, createResponsesStreamDecoder({ generateId: idGenerator() }))
const decodeText = (text: string) => decode([new TextEncoder().encode(text)])

/** The canonical events without usage snapshots, errors reduced to their message. */
const shape = (events: StreamEvent[]) =>
  events.map((event) =>
    event.type === 'error' ? { type: 'error', message: event.error.message } : event,
  )

describe('Responses stream decoder', () => {
  it('decodes a text stream: message-start, one text block, usage with cache reads, stop', async () => {
    const events = await decodeText(fixture('text.sse'))
    expect(events[0]).toEqual({
      type: 'message-start',
      id: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
      model: 'gpt-5.1-codex-max',
    })
    expect(
      events
        .filter((event) => event.type === 'text-delta')
        .map((event) => (event as { delta: string }).delta)
        .join(''),
    ).toBe('Grüße aus 東京 👋🏽!')
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'completed' },
      usage: {
        input: { total: 1200, uncached: 176, cacheRead: 1024, cacheWrite: undefined },
        output: { total: 9, reasoning: 0 },
      },
    })
  })

  it('decodes reasoning summaries and a function call, finishing for tool calls', async () => {
    const events = await decodeText(fixture('reasoning-tool-call.sse'))
    expect(
      shape(
        events.filter(
          (event) =>
            event.type !== 'usage' &&
            event.type !== 'reasoning-delta' &&
            event.type !== 'tool-call-delta',
        ),
      ),
    ).toEqual([
      {
        type: 'message-start',
        id: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
        model: 'gpt-5.1-codex-max',
      },
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_Xy7Kq2LmN4pR8sT1', name: 'get_weather' },
      { type: 'tool-call-end', index: 1 },
      expect.objectContaining({
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: 'completed' },
      }),
    ])
    const args = events
      .flatMap((event) => (event.type === 'tool-call-delta' ? [event.argumentsDelta] : []))
      .join('')
    expect(JSON.parse(args)).toEqual({ city: 'Zürich' })
  })

  it('gives no reasoning block for a reasoning item without a summary, as a JSON answer gives none', async () => {
    // A reasoning model reasons whether asked or not; without `reasoning.summary` the item is
    // empty, and an empty thinking block would reach Anthropic clients in streams only.
    const text = fixture('reasoning-tool-call.sse')
      .split('\n\n')
      .filter((frame) => !frame.includes('reasoning_summary'))
      .map((frame) => frame.replace(/"summary":\[[^\]]*\]/g, '"summary":[]'))
      .join('\n\n')
    const events = await decodeText(text)
    expect(events.filter((event) => event.type.startsWith('reasoning'))).toEqual([])
    expect(events.find((event) => event.type === 'tool-call-start')).toMatchObject({ index: 0 })
  })

  it('gives a custom tool call as a call whose arguments wrap the raw input', async () => {
    const events = await decodeText(fixture('custom-tool-call.sse'))
    const args = events.flatMap((event) =>
      event.type === 'tool-call-delta' ? [event.argumentsDelta] : [],
    )
    expect(args).toHaveLength(1)
    expect(JSON.parse(args[0]!)).toEqual({
      input: '*** Begin Patch\n*** Add File: hello.txt\n+Hallo, Welt\n*** End Patch',
    })
  })

  it('ends in an error event on an upstream error, after the text it sent', async () => {
    const events = await decodeText(fixture('error-mid-stream.sse'))
    expect(shape(events).slice(-2)).toEqual([
      { type: 'text-delta', index: 0, delta: 'Par' },
      {
        type: 'error',
        message: 'The server had an error while processing your request. Sorry about that!',
      },
    ])
  })

  it('finishes an incomplete response for length', async () => {
    const events = await decodeText(fixture('incomplete.sse'))
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'length', raw: 'max_output_tokens' },
    })
  })

  it('never invents a finish for a body that ends without its terminal event', async () => {
    const text = fixture('text.sse')
    const cut = text.slice(0, text.indexOf('event: response.completed'))
    expect(shape(await decodeText(cut)).at(-1)).toEqual({
      type: 'error',
      message: 'The upstream stream ended before the response finished.',
    })
  })

  it.each(fixtures)(
    'decodes %s the same at every chunk split and at random splits',
    async (name) => {
      const text = fixture(name)
      const whole = await decodeText(text)
      for (const chunks of everySplit(text))
        expect(shape(await decode(chunks))).toEqual(shape(whole))
      for (let seed = 1; seed <= 20; seed += 1)
        expect(shape(await decode(randomSplit(text, seed)))).toEqual(shape(whole))
    },
  )
})
