import { describe, expect, it } from 'vitest'
import { decodeAnthropicRequest } from '../../../src/protocols/anthropic/request-decode'
import { encodeAnthropicRequest } from '../../../src/protocols/anthropic/request-encode'
import { anthropicMessagesRequestSchema } from '../../../src/protocols/anthropic/request-schema'
import { decodeOpenAIRequest } from '../../../src/protocols/openai/request-decode'
import { encodeOpenAIRequest } from '../../../src/protocols/openai/request-encode'
import { openAIChatRequestSchema } from '../../../src/protocols/openai/request-schema'

/** An OpenAI body as it reaches an Anthropic upstream. */
function toAnthropic(body: unknown): Record<string, any> {
  return encodeAnthropicRequest(decodeOpenAIRequest(openAIChatRequestSchema.parse(body)), {
    defaultMaxTokens: 4096,
  })
}

/** An Anthropic body as it reaches an OpenAI upstream. */
function toOpenAI(body: unknown): Record<string, any> {
  return encodeOpenAIRequest(decodeAnthropicRequest(anthropicMessagesRequestSchema.parse(body)))
}

const user = (content: unknown) => ({ role: 'user', content })

describe('chat-completions → messages requests', () => {
  it('SYS-01: leading system and developer messages become top-level system blocks in order', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [{ role: 'system', content: 'A' }, { role: 'developer', content: 'B' }, user('hi')],
    })
    expect(body['system']).toEqual([
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B' },
    ])
    expect(body['messages'][0].role).toBe('user')
  })

  it('SYS-02 (pinned: hoist): a mid-conversation system message joins the top-level system, never a system role', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [
        user('a'),
        { role: 'assistant', content: 'b' },
        { role: 'system', content: 'Now be formal.' },
        user('c'),
      ],
    })
    expect(body['system']).toEqual([{ type: 'text', text: 'Now be formal.' }])
    expect(body['messages'].map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ])
  })

  it('SYS-08: empty system text is dropped', () => {
    expect(
      toAnthropic({ model: 'm', messages: [{ role: 'system', content: '' }, user('x')] })['system'],
    ).toBeUndefined()
  })

  it('ROLE-01: consecutive same-role turns merge', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [user('a'), user('b'), { role: 'assistant', content: 'c' }],
    })
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
    ])
  })

  it('ROLE-04: a trailing assistant prefill loses its trailing whitespace', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [user('q'), { role: 'assistant', content: 'Answer: ' }],
    })
    expect(body['messages'][1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Answer:' }],
    })
  })

  it('CNT-02: data-URL and http images become base64 and url image sources', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [
        user([
          {
            type: 'image_url',
            image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
          },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ]),
      ],
    })
    expect(body['messages'][0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ])
  })

  it('CNT-03: an assistant turn with empty content and tool calls carries only tool_use', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [
        user('q'),
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
      ],
    })
    expect(body['messages'][1].content).toEqual([
      { type: 'tool_use', id: 'c1', name: 'f', input: {} },
    ])
  })

  it('CNT-05: an audio part is refused with 400 naming the part', () => {
    expect(() =>
      toAnthropic({
        model: 'm',
        messages: [user([{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }])],
      }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'messages[0].content[0]' }))
  })

  it('TOOL-D-01/02: function tools become tools with input_schema, defaulted when missing', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [user('q')],
      tools: [
        {
          type: 'function',
          function: {
            name: 'a',
            description: 'd',
            parameters: { type: 'object', properties: { x: { type: 'string' } } },
          },
        },
        { type: 'function', function: { name: 'b' } },
      ],
    })
    expect(body['tools']).toEqual([
      {
        name: 'a',
        description: 'd',
        input_schema: { type: 'object', properties: { x: { type: 'string' } } },
      },
      { name: 'b', input_schema: { type: 'object', properties: {} } },
    ])
  })

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [
      { type: 'function', function: { name: 'a' } },
      { type: 'tool', name: 'a' },
    ],
  ])('TC-01/TC-02: tool_choice %j becomes %j', (choice, expected) => {
    const body = toAnthropic({
      model: 'm',
      messages: [user('q')],
      tools: [{ type: 'function', function: { name: 'a' } }],
      tool_choice: choice,
    })
    expect(body['tool_choice']).toEqual(expected)
  })

  it('TC-04: parallel_tool_calls false becomes disable_parallel_tool_use', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [user('q')],
      tools: [{ type: 'function', function: { name: 'a' } }],
      parallel_tool_calls: false,
    })
    expect(body['tool_choice']).toEqual({ type: 'auto', disable_parallel_tool_use: true })
  })

  it.each([
    ['', {}],
    ['{}', {}],
    ['not json', {}],
    ['[1,2]', {}],
    ['{"a":1}', { a: 1 }],
  ])('TOOL-H-01: arguments %j become input %j', (args, input) => {
    const body = toAnthropic({
      model: 'm',
      messages: [
        user('q'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'r' },
      ],
    })
    expect(body['messages'][1].content[0].input).toEqual(input)
  })

  it('TOOL-H-03: a foreign tool id is made Anthropic-safe identically on the call and its result', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [
        user('q'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'functions.Bash:0',
              type: 'function',
              function: { name: 'Bash', arguments: '{}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'functions.Bash:0', content: 'ok' },
      ],
    })
    const id = body['messages'][1].content[0].id
    expect(id).toMatch(/^[a-zA-Z0-9_-]+$/)
    expect(body['messages'][2].content[0].tool_use_id).toBe(id)
  })

  it('TOOL-H-04: consecutive tool results and a following user text form one user turn, results first', () => {
    const body = toAnthropic({
      model: 'm',
      messages: [
        user('q'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: '1' },
        { role: 'tool', tool_call_id: 'b', content: '2' },
        user('thanks'),
      ],
    })
    expect(body['messages'][2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: '1' }] },
        { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: '2' }] },
        { type: 'text', text: 'thanks' },
      ],
    })
  })

  it('GEN-01 (pinned): no max_tokens becomes the documented default, and a thinking budget is added on top', () => {
    expect(toAnthropic({ model: 'm', messages: [user('q')] })['max_tokens']).toBe(4096)
    const body = toAnthropic({
      model: 'm',
      messages: [user('q')],
      max_completion_tokens: 1000,
      reasoning_effort: 'high',
    })
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 4096 })
    expect(body['max_tokens']).toBe(5096)
  })

  it('GEN-02 (pinned: clamp): temperature is clamped to 0–1, and dropped with thinking on', () => {
    expect(
      toAnthropic({ model: 'm', messages: [user('q')], temperature: 1.7 })['temperature'],
    ).toBe(1)
    expect(
      toAnthropic({ model: 'm', messages: [user('q')], temperature: 0.3, reasoning_effort: 'low' })[
        'temperature'
      ],
    ).toBeUndefined()
  })

  it('GEN-04: stop as a string or an array becomes stop_sequences', () => {
    expect(
      toAnthropic({ model: 'm', messages: [user('q')], stop: 'END' })['stop_sequences'],
    ).toEqual(['END'])
    expect(
      toAnthropic({ model: 'm', messages: [user('q')], stop: ['a', 'b'] })['stop_sequences'],
    ).toEqual(['a', 'b'])
  })

  it('GEN-09: user becomes metadata.user_id', () => {
    expect(toAnthropic({ model: 'm', messages: [user('q')], user: 'u1' })['metadata']).toEqual({
      user_id: 'u1',
    })
  })

  it.each([
    ['minimal', 1024],
    ['low', 1024],
    ['medium', 2048],
    ['high', 4096],
  ])('RSN-01: reasoning_effort %s becomes a thinking budget of %i', (effort, budget) => {
    expect(
      toAnthropic({ model: 'm', messages: [user('q')], reasoning_effort: effort })['thinking'],
    ).toEqual({ type: 'enabled', budget_tokens: budget })
  })

  it('RSN-01: reasoning_effort none disables thinking explicitly', () => {
    expect(
      toAnthropic({ model: 'm', messages: [user('q')], reasoning_effort: 'none' })['thinking'],
    ).toEqual({ type: 'disabled' })
  })
})

describe('messages → chat-completions requests', () => {
  it('SYS-03: a string or block-array system becomes one leading system message', () => {
    expect(
      toOpenAI({ model: 'm', max_tokens: 5, system: 'S', messages: [user('q')] })['messages'][0],
    ).toEqual({ role: 'system', content: 'S' })
    expect(
      toOpenAI({
        model: 'm',
        max_tokens: 5,
        system: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } },
        ],
        messages: [user('q')],
      })['messages'][0],
    ).toEqual({ role: 'system', content: 'AB' })
  })

  it('TOOL-H-02: tool_use becomes tool_calls with JSON arguments, content null without text', () => {
    const body = toOpenAI({
      model: 'm',
      max_tokens: 5,
      messages: [
        user('q'),
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } }],
        },
        user([{ type: 'tool_result', tool_use_id: 't1', content: 'r' }]),
      ],
    })
    expect(body['messages'][1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    })
  })

  it('TOOL-H-05: a multi-part tool result is one tool message, errors prefixed, images following in a user message', () => {
    const body = toOpenAI({
      model: 'm',
      max_tokens: 5,
      messages: [
        user('q'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'shot', input: {} }] },
        user([
          {
            type: 'tool_result',
            tool_use_id: 't1',
            is_error: true,
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
            ],
          },
        ]),
      ],
    })
    expect(body['messages'].slice(2)).toEqual([
      { role: 'tool', tool_call_id: 't1', content: 'Error: ab' },
      {
        role: 'user',
        content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } }],
      },
    ])
  })

  it.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'any' }, 'required'],
    [{ type: 'none' }, 'none'],
    [
      { type: 'tool', name: 'f' },
      { type: 'function', function: { name: 'f' } },
    ],
  ])('TC-01: tool_choice %j becomes %j', (choice, expected) => {
    const body = toOpenAI({
      model: 'm',
      max_tokens: 5,
      messages: [user('q')],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: choice,
    })
    expect(body['tool_choice']).toEqual(expected)
  })

  it('TC-04: disable_parallel_tool_use becomes parallel_tool_calls false', () => {
    const body = toOpenAI({
      model: 'm',
      max_tokens: 5,
      messages: [user('q')],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    })
    expect(body['parallel_tool_calls']).toBe(false)
  })

  it.each([
    [1024, 'low'],
    [4000, 'medium'],
    [16000, 'high'],
  ])('RSN-02 (pinned): a thinking budget of %i becomes reasoning_effort %s', (budget, effort) => {
    expect(
      toOpenAI({
        model: 'm',
        max_tokens: 20000,
        messages: [user('q')],
        thinking: { type: 'enabled', budget_tokens: budget },
      })['reasoning_effort'],
    ).toBe(effort)
  })

  it('GEN-08: a stream asks the upstream for usage', () => {
    expect(
      toOpenAI({ model: 'm', max_tokens: 5, stream: true, messages: [user('q')] })[
        'stream_options'
      ],
    ).toEqual({ include_usage: true })
  })

  it('TOOL-D-06: server tools are dropped, custom tools kept', () => {
    const body = toOpenAI({
      model: 'm',
      max_tokens: 5,
      messages: [user('q')],
      tools: [
        { type: 'web_search_20250305', name: 'web_search' },
        { name: 'f', input_schema: { type: 'object' } },
      ],
    })
    expect(body['tools']).toEqual([
      { type: 'function', function: { name: 'f', parameters: { type: 'object' } } },
    ])
  })

  it('CNT-04: a PDF document becomes a file part', () => {
    const body = toOpenAI({
      model: 'm',
      max_tokens: 5,
      messages: [
        user([
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' },
            title: 'a.pdf',
          },
        ]),
      ],
    })
    expect(body['messages'][0].content).toEqual([
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
    ])
  })
})
