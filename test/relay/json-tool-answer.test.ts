import { describe, expect, it } from 'vitest'
import type { ChatResponse, StreamEvent } from '../../src/canonical/types'
import { unwrapJsonToolResponse, unwrapJsonToolStream } from '../../src/relay/json-tool-answer'

const usage = { input: { total: 1 }, output: { total: 1 } }

describe('unwrapJsonToolResponse (JSON-01)', () => {
  it('turns the answer tool’s input into text, finished stop', () => {
    const response: ChatResponse = {
      id: 'm',
      model: 'x',
      content: [{ type: 'tool-call', id: 't', name: 'json_answer', arguments: '{"a":1}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage,
    }
    expect(unwrapJsonToolResponse(response, 'json_answer')).toMatchObject({
      content: [{ type: 'text', text: '{"a":1}' }],
      finishReason: { unified: 'stop' },
    })
  })

  it('keeps the client’s own tool calls as calls', () => {
    const response: ChatResponse = {
      id: 'm',
      model: 'x',
      content: [{ type: 'tool-call', id: 't', name: 'search', arguments: '{}' }],
      finishReason: { unified: 'tool-calls' },
      usage,
    }
    expect(unwrapJsonToolResponse(response, 'json_answer')).toBe(response)
  })
})

describe('unwrapJsonToolStream', () => {
  it('streams the answer tool’s arguments as text', () => {
    const events: StreamEvent[] = [
      { type: 'message-start', id: 'm', model: 'x' },
      { type: 'tool-call-start', index: 0, id: 't', name: 'json_answer' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage },
    ]
    let at = 0
    const decoder = unwrapJsonToolStream(
      { push: () => [events[at++]!], end: () => [] },
      'json_answer',
    )
    const out = events.flatMap(() => decoder.push({ type: 'event', data: '' }))
    expect(out).toEqual([
      { type: 'message-start', id: 'm', model: 'x' },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: '{"a":' },
      { type: 'text-delta', index: 0, delta: '1}' },
      { type: 'text-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'stop' }, usage },
    ])
  })
})
