import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../../src/errors'
import { mintReasoningBlob } from '../../../src/protocols/responses/reasoning-blob'
import { decodeResponsesRequest } from '../../../src/protocols/responses/request-decode'
import { decode, requestOf } from './helpers'

const call = (call_id: string, name: string, args = '{}') => ({
  type: 'function_call',
  call_id,
  name,
  arguments: args,
})
const output = (call_id: string, out: unknown) => ({
  type: 'function_call_output',
  call_id,
  output: out,
})

describe('Responses request → canonical', () => {
  it('RESP-REQ-01/02: instructions lead as a system message; a string input is one user message', () => {
    expect(decode({ instructions: 'Be brief.', input: 'Hi' }).request.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ])
  })

  it('RESP-REQ-03: developer and system messages are system messages where they stand (Codex shape)', () => {
    const { messages } = decode({
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'perms' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] },
        { type: 'message', role: 'developer', content: 'env' },
        { role: 'user', content: 'go' },
      ],
    }).request
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'system', 'user'])
  })

  it('RESP-REQ-04: images and files as data URLs or URLs; a stored file_id is a 400 naming the part', () => {
    const { messages } = decode({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' },
            { type: 'input_image', image_url: 'https://example.com/a.jpg' },
            {
              type: 'input_file',
              file_data: 'data:application/pdf;base64,JVBE',
              filename: 'a.pdf',
            },
          ],
        },
      ],
    }).request
    expect(messages[0]!.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
      {
        type: 'file',
        mediaType: 'application/pdf',
        source: { kind: 'base64', data: 'JVBE' },
        filename: 'a.pdf',
      },
    ])
    const refused = () =>
      decode({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] })
    expect(refused).toThrow(GatewayError)
    expect(refused).toThrow(expect.objectContaining({ param: 'input[0].content[0]', status: 400 }))
  })

  it('RESP-REQ-05/06: assistant text and the calls after it form one assistant turn', () => {
    const { messages } = decode({
      input: [
        { role: 'user', content: 'weather in two cities?' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        call('c1', 'get_weather', '{"city":"Paris"}'),
        call('c2', 'get_weather', '{"city":"Rome"}'),
        output('c1', 'sunny'),
        output('c2', 'rain'),
      ],
    }).request
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in two cities?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'c2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'get_weather',
            content: [{ type: 'text', text: 'sunny' }],
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'get_weather',
            content: [{ type: 'text', text: 'rain' }],
          },
        ],
      },
    ])
  })

  it('RESP-REQ-08: output parts carry text and images', () => {
    const { messages } = decode({
      input: [
        call('c1', 'view_image'),
        output('c1', [
          { type: 'input_text', text: 'here' },
          { type: 'input_image', image_url: 'data:image/png;base64,QQ==' },
        ]),
      ],
    }).request
    expect(messages.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'view_image',
          content: [
            { type: 'text', text: 'here' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'QQ==' } },
          ],
        },
      ],
    })
  })

  it('RESP-REQ-09: an output follows its call whatever came between; an orphan output becomes user text', () => {
    const { messages } = decode({
      input: [
        call('c1', 'shell'),
        { role: 'developer', content: 'env changed' },
        output('c1', 'ok'),
        output('ghost', 'lost'),
      ],
    }).request
    expect(messages.map((message) => message.role)).toEqual(['assistant', 'tool', 'system', 'user'])
    expect(messages[3]!.content).toEqual([
      { type: 'text', text: 'Output of tool call ghost:\nlost' },
    ])
  })

  it('RESP-REQ-10/RESP-TOOL-03: a custom tool is a one-string function; its calls carry {"input"}', () => {
    const decoded = decode({
      tools: [
        {
          type: 'custom',
          name: 'apply_patch',
          description: 'Patch files.',
          format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
        },
      ],
      input: [
        { type: 'custom_tool_call', call_id: 'p1', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'p1', output: 'Done!' },
      ],
    })
    expect(decoded.request.tools).toEqual([
      {
        name: 'apply_patch',
        description: expect.stringMatching(
          /^Patch files\.\n\nThe `input` argument is raw text \(not JSON\) in this lark grammar:\n```\nstart: \/\.\+\/\n```$/,
        ),
        inputSchema: {
          type: 'object',
          properties: { input: { type: 'string', description: 'The raw input of the tool.' } },
          required: ['input'],
        },
      },
    ])
    expect(decoded.context.names.custom.has('apply_patch')).toBe(true)
    expect(decoded.request.messages[0]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          id: 'p1',
          name: 'apply_patch',
          arguments: '{"input":"*** Begin Patch"}',
        },
      ],
    })
  })

  it('RESP-REQ-11: gateway blobs restore reasoning exactly; foreign blobs and summary-only items are dropped', () => {
    const signed = {
      type: 'reasoning' as const,
      text: 'Let me think.',
      signature: { protocol: 'anthropic' as const, value: 'EqQBCkgI' },
    }
    const { messages } = decode({
      input: [
        { role: 'user', content: 'q' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [],
          encrypted_content: mintReasoningBlob(signed),
        },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAAAABpHHyd' },
        {
          type: 'reasoning',
          id: 'rs_3',
          summary: [{ type: 'summary_text', text: 'only a summary' }],
        },
        call('c1', 'shell'),
      ],
    }).request
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [signed, { type: 'tool-call', id: 'c1', name: 'shell', arguments: '{}' }],
    })
  })

  it('RESP-REQ-11: a gateway blob that does not read back is a 400 naming it, never dropped', () => {
    for (const blob of ['gwr1.not-base64!', `gwr1.${btoa('{"t":1}')}`, 'gwr1.'])
      expect(() =>
        decode({
          input: [
            { role: 'user', content: 'q' },
            { type: 'reasoning', id: 'rs_4', summary: [], encrypted_content: blob },
            call('c1', 'shell'),
          ],
        }),
      ).toThrow(
        expect.objectContaining({ code: 'invalid_request', param: 'input[1].encrypted_content' }),
      )
  })

  it('RESP-REQ-11: reasoning sent back by id only is restored from the store', () => {
    const stored = new Map([
      [
        'rs_9',
        {
          type: 'reasoning' as const,
          text: 't',
          signature: { protocol: 'gemini' as const, value: 'sig' },
        },
      ],
    ])
    const request = requestOf({
      input: [{ type: 'reasoning', id: 'rs_9', summary: [] }, call('c', 'f')],
    })
    const { messages } = decodeResponsesRequest(request, request.input, stored).request
    expect(messages[0]!.content[0]).toEqual(stored.get('rs_9'))
  })

  it('RESP-REQ-15: items only OpenAI can read are dropped; local shell calls become calls', () => {
    const { messages } = decode({
      input: [
        { role: 'user', content: 'q' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { type: 'compaction', encrypted_content: 'x' },
        { type: 'local_shell_call', call_id: 'sh1', action: { type: 'exec', command: ['ls'] } },
        { type: 'local_shell_call_output', call_id: 'sh1', output: 'a.txt' },
        { role: 'assistant', content: 'Found it.', phase: 'final_answer' },
      ],
    }).request
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            id: 'sh1',
            name: 'local_shell',
            arguments: '{"type":"exec","command":["ls"]}',
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'sh1',
            toolName: 'local_shell',
            content: [{ type: 'text', text: 'a.txt' }],
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Found it.' }] },
    ])
  })

  it('RESP-TOOL-01: flat function tools keep their schema; a missing one is an empty object schema', () => {
    expect(
      decode({
        tools: [
          {
            type: 'function',
            name: 'a',
            description: 'A',
            parameters: { type: 'object', properties: { x: {} } },
            strict: true,
          },
          { type: 'function', name: 'b', parameters: null },
        ],
      }).request.tools,
    ).toEqual([
      { name: 'a', description: 'A', inputSchema: { type: 'object', properties: { x: {} } } },
      { name: 'b', inputSchema: { type: 'object', properties: {} } },
    ])
  })

  it('RESP-TOOL-02: namespaces are flattened, colliding names qualified, and calls in history found again', () => {
    const decoded = decode({
      tools: [
        { type: 'function', name: 'search' },
        {
          type: 'namespace',
          name: 'mcp__docs',
          description: 'Docs',
          tools: [
            { type: 'function', name: 'search' },
            { type: 'function', name: 'fetch' },
          ],
        },
      ],
      input: [{ ...call('c1', 'search'), namespace: 'mcp__docs' }, output('c1', 'hit')],
    })
    expect(decoded.request.tools?.map((tool) => tool.name)).toEqual([
      'search',
      'mcp__docs__search',
      'fetch',
    ])
    expect(decoded.request.messages[0]!.content[0]).toMatchObject({ name: 'mcp__docs__search' })
  })

  it('RESP-TOOL-04: built-in tools are dropped and listed, never a 400', () => {
    const decoded = decode({
      tools: [
        { type: 'function', name: 'f' },
        { type: 'web_search', external_web_access: true },
        { type: 'image_generation' },
        { type: 'local_shell' },
      ],
    })
    expect(decoded.request.tools?.map((tool) => tool.name)).toEqual(['f'])
    expect(decoded.droppedTools).toEqual(['web_search', 'image_generation', 'local_shell'])
  })

  it('RESP-TC-01/02: tool_choice forms and parallel_tool_calls', () => {
    const tools = [
      { type: 'function', name: 'f' },
      { type: 'custom', name: 'g' },
    ]
    expect(decode({ tools, tool_choice: 'required' }).request.toolChoice).toEqual({
      type: 'required',
    })
    expect(
      decode({ tools, tool_choice: { type: 'function', name: 'f' } }).request.toolChoice,
    ).toEqual({ type: 'tool', name: 'f' })
    expect(
      decode({ tools, tool_choice: { type: 'custom', name: 'g' } }).request.toolChoice,
    ).toEqual({ type: 'tool', name: 'g' })
    const allowed = decode({
      tools,
      tool_choice: {
        type: 'allowed_tools',
        mode: 'required',
        tools: [{ type: 'function', name: 'f' }],
      },
    }).request
    expect(allowed.toolChoice).toEqual({ type: 'required' })
    expect(allowed.tools?.map((tool) => tool.name)).toEqual(['f'])
    expect(decode({ tools, tool_choice: { type: 'web_search' } }).request.toolChoice).toEqual({
      type: 'auto',
    })
    expect(decode({ tools, parallel_tool_calls: false }).request.parallelToolCalls).toBe(false)
  })

  it('RESP-RSN-01/MAX-01/FMT-01: effort, output limit, sampling and JSON output', () => {
    const { request } = decode({
      reasoning: { effort: 'high', summary: 'auto' },
      max_output_tokens: 500,
      temperature: 0.3,
      top_p: 0.9,
      text: {
        format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
      },
      safety_identifier: 'user-7',
    })
    expect(request).toMatchObject({
      reasoning: { effort: 'high' },
      maxOutputTokens: 500,
      temperature: 0.3,
      topP: 0.9,
      responseFormat: { type: 'json', schema: { type: 'object' }, name: 'answer' },
      user: 'user-7',
    })
    expect(decode({ text: { format: { type: 'json_object' } } }).request.responseFormat).toEqual({
      type: 'json',
    })
  })

  it('RESP-MISC-01: prompt_cache_key marks the instructions and the last user text as cache breakpoints', () => {
    const { messages } = decode({
      instructions: 'long prompt',
      prompt_cache_key: 'thread-1',
      input: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
    }).request
    expect(messages[0]!.content[0]).toMatchObject({ cacheControl: { type: 'ephemeral' } })
    expect(messages[1]!.content[0]).not.toHaveProperty('cacheControl')
    expect(messages[2]!.content[0]).toMatchObject({ cacheControl: { type: 'ephemeral' } })
  })

  it('reads include and store into what the answer carries', () => {
    expect(decode({ include: ['reasoning.encrypted_content'] }).context.includeEncrypted).toBe(true)
    expect(decode({ store: false }).context.includeEncrypted).toBe(true)
    expect(decode({}).context).toMatchObject({ includeEncrypted: false, summaries: false })
    expect(decode({ reasoning: { summary: 'concise' } }).context.summaries).toBe(true)
  })
})
