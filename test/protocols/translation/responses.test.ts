import { describe, expect, it } from 'vitest'
import {
  decodeAnthropicResponse,
  encodeAnthropicResponse,
} from '../../../src/protocols/anthropic/response'
import { decodeOpenAIResponse, encodeOpenAIResponse } from '../../../src/protocols/openai/response'
import { anthropicMessage } from '../../helpers/anthropic-upstream'
import { chatCompletion } from '../../helpers/upstream'

const toOpenAI = (body: unknown) =>
  encodeOpenAIResponse(decodeAnthropicResponse(body), {
    id: 'chatcmpl-x',
    model: 'alias',
    created: 1,
  })
const toAnthropic = (body: unknown) =>
  encodeAnthropicResponse(decodeOpenAIResponse(body), { id: 'msg_x', model: 'alias' })

describe('messages → chat-completions responses', () => {
  it('RESP-02: thinking, text and two tool_use blocks become reasoning, joined text and two tool calls', () => {
    const body = toOpenAI(
      anthropicMessage(
        [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'a', input: { x: 1 } },
          { type: 'tool_use', id: 'toolu_2', name: 'b', input: {} },
        ],
        { stopReason: 'tool_use' },
      ),
    )
    expect(body.choices[0]).toMatchObject({
      message: {
        content: 'Let me check.',
        reasoning_content: 'hmm',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
          { id: 'toolu_2', function: { name: 'b', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    })
    expect(JSON.stringify(body)).not.toContain('sig')
  })

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('FIN: stop_reason %s becomes finish_reason %s', (stopReason, finishReason) => {
    expect(
      toOpenAI(anthropicMessage([{ type: 'text', text: 'x' }], { stopReason })).choices[0]
        ?.finish_reason,
    ).toBe(finishReason)
  })

  it('USE-01: prompt_tokens includes cache reads and writes, and the totals add up', () => {
    const body = toOpenAI(
      anthropicMessage([{ type: 'text', text: 'x' }], {
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 20,
          output_tokens: 7,
        },
      }),
    )
    expect(body.usage).toEqual({
      prompt_tokens: 130,
      completion_tokens: 7,
      total_tokens: 137,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 0 },
    })
  })

  it('ID-01/ID-02: the id has the protocol prefix and the model is the call name', () => {
    const body = toOpenAI(anthropicMessage([{ type: 'text', text: 'x' }]))
    expect(body).toMatchObject({
      id: 'chatcmpl-x',
      object: 'chat.completion',
      created: 1,
      model: 'alias',
    })
  })

  it('RR-04: a refusal explanation reaches message.refusal', () => {
    const body = toOpenAI({
      ...anthropicMessage([], { stopReason: 'refusal' }),
      stop_details: { type: 'refusal', category: 'cyber', explanation: 'I cannot help with that.' },
    })
    expect(body.choices[0]?.message.refusal).toBe('I cannot help with that.')
    expect(body.choices[0]?.finish_reason).toBe('content_filter')
  })
})

describe('chat-completions → messages responses', () => {
  it('RESP-A-01: thinking first, then text, then tool_use, with stop_sequence always present', () => {
    const body = toAnthropic({
      ...chatCompletion('Sure.'),
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Sure.',
            reasoning_content: 'think',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } },
            ],
          },
        },
      ],
    })
    expect(body).toMatchObject({
      id: 'msg_x',
      type: 'message',
      role: 'assistant',
      model: 'alias',
      stop_reason: 'tool_use',
      stop_sequence: null,
    })
    expect(body.content).toEqual([
      { type: 'thinking', thinking: 'think', signature: 'gw1.unsigned' },
      { type: 'text', text: 'Sure.' },
      { type: 'tool_use', id: 'call_1', name: 'f', input: {} },
    ])
  })

  it('USE-01: input_tokens excludes cached tokens and no count goes negative', () => {
    const body = toAnthropic({
      ...chatCompletion('x'),
      usage: {
        prompt_tokens: 100,
        completion_tokens: 5,
        total_tokens: 105,
        prompt_tokens_details: { cached_tokens: 60 },
      },
    })
    expect(body.usage).toEqual({
      input_tokens: 40,
      cache_read_input_tokens: 60,
      cache_creation_input_tokens: 0,
      output_tokens: 5,
    })
  })

  it('USE-05: DeepSeek prompt_cache_hit_tokens count as cache reads', () => {
    const body = toAnthropic({
      ...chatCompletion('x'),
      usage: {
        prompt_tokens: 50,
        completion_tokens: 5,
        total_tokens: 55,
        prompt_cache_hit_tokens: 30,
        prompt_cache_miss_tokens: 20,
      },
    })
    expect(body.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 30 })
  })

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['content_filter', 'refusal'],
  ])('FIN: finish_reason %s becomes stop_reason %s', (finishReason, stopReason) => {
    const body = toAnthropic({
      ...chatCompletion('x'),
      choices: [
        { index: 0, finish_reason: finishReason, message: { role: 'assistant', content: 'x' } },
      ],
    })
    expect(body.stop_reason).toBe(stopReason)
  })

  it('CNT-03: an empty text reply makes no empty text block', () => {
    expect(toAnthropic(chatCompletion('')).content).toEqual([])
  })
})
