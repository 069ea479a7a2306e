import { describe, expect, it } from 'vitest'
import type { Usage } from '../../../src/canonical/types'
import { chunk, decodeText, fragment, header, sse, toolEvents } from './stream-helpers'

const noUsage: Usage = { input: {}, output: {} }
const toolCalls = { unified: 'tool-calls', raw: 'tool_calls' } as const

describe('OpenAI stream decoder: tool calls', () => {
  it('STR-IN-O-01: follows a server that repeats the id on every fragment', async () => {
    const events = await decodeText(
      sse(
        chunk({ role: 'assistant', tool_calls: [header(0, 'call_r', 'lookup')] }),
        chunk({ tool_calls: [fragment(0, '{"q":', 'call_r')] }),
        chunk({ tool_calls: [fragment(undefined, '"x"}', 'call_r')] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    )
    expect(toolEvents(events)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_r', name: 'lookup' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"x"}' },
      { type: 'tool-call-end', index: 0 },
    ])
  })

  it('STR-IN-O-01: keeps apart calls that a server numbers all 0', async () => {
    const events = await decodeText(
      sse(
        chunk({ tool_calls: [header(0, 'call_a', 'first', '{"n":1}')] }),
        chunk({ tool_calls: [header(0, 'call_b', 'second', '{"n":2}')] }),
        chunk({ tool_calls: [header(undefined, undefined, 'third', '{"n":3}')] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    )
    expect(toolEvents(events)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'first' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"n":1}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'second' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"n":2}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'gen-1', name: 'third' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{"n":3}' },
      { type: 'tool-call-end', index: 2 },
    ])
  })

  it('emits interleaved parallel calls one after another, never interleaved', async () => {
    const events = await decodeText(
      sse(
        chunk({ tool_calls: [header(0, 'call_a', 'a'), header(1, 'call_b', 'b')] }),
        chunk({ tool_calls: [fragment(1, '{"b":')] }),
        chunk({ tool_calls: [fragment(0, '{"a":')] }),
        chunk({ tool_calls: [fragment(1, '2}')] }),
        chunk({ tool_calls: [fragment(0, '1}')] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    )
    expect(toolEvents(events)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'b' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"b":2}' },
      { type: 'tool-call-end', index: 1 },
    ])
  })

  it('synthesises missing and empty ids with generateId, and never reuses an id', async () => {
    const events = await decodeText(
      sse(
        chunk({ tool_calls: [header(0, '', 'a', '{}')] }),
        chunk({ tool_calls: [header(1, undefined, 'b', '{}')] }),
        chunk({ tool_calls: [header(2, 'call_same', 'c', '{}')] }),
        chunk({ tool_calls: [header(3, 'call_same', 'd', '{}')] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    )
    const ids = events.flatMap((event) => (event.type === 'tool-call-start' ? [event.id] : []))
    expect(ids).toEqual(['gen-1', 'gen-2', 'call_same', 'gen-3'])
  })

  it('STR-IN-O-02: keeps a call open after its arguments first parse as JSON', async () => {
    const events = await decodeText(
      sse(
        chunk({ tool_calls: [header(0, 'call_n', 'count', '1')] }),
        chunk({ tool_calls: [fragment(0, '2')] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    )
    expect(toolEvents(events)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_n', name: 'count' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '2' },
      { type: 'tool-call-end', index: 0 },
    ])
  })

  it('STR-IN-O-05: turns `stop` after streamed tool calls into tool-calls', async () => {
    const events = await decodeText(
      sse(chunk({ tool_calls: [header(0, 'call_g', 'g', '{}')] }), chunk({}, 'stop'), '[DONE]'),
    )
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: toolCalls, usage: noUsage })
  })

  it('closes the tool calls when text follows them, and numbers the text block next', async () => {
    const events = await decodeText(
      sse(
        chunk({ tool_calls: [header(0, 'call_a', 'a', '{}')] }),
        chunk({ content: 'after' }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    )
    expect(events.slice(1, -1)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'after' },
      { type: 'text-end', index: 1 },
    ])
  })
})
