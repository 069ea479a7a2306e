import { describe, expect, it } from 'vitest'
import { encodeGeminiToolCallId } from '../../../src/protocols/gemini/tool-call-id'
import { encodeGeminiRequest } from '../../../src/protocols/gemini/request-encode'
import {
  fromGemini,
  oToG,
  aToG,
  text,
  gUser,
  gModel,
  call,
  answer,
  oUser,
  oCall,
} from './request-helpers'

describe('chat-completions / messages → canonical → generateContent', () => {
  it('SYS-05: every system text becomes its own systemInstruction part, none in contents', () => {
    const body = oToG({
      model: 'm',
      messages: [
        { role: 'system', content: 'A' },
        { role: 'developer', content: 'B' },
        oUser('q'),
        { role: 'system', content: '' },
      ],
    })
    expect(body['systemInstruction']).toEqual({ parts: [text('A'), text('B')] })
    expect(body['contents']).toEqual([{ role: 'user', parts: [text('q')] }])
    expect(
      aToG({
        model: 'm',
        max_tokens: 5,
        system: [
          { type: 'text', text: 'X' },
          { type: 'text', text: 'Y', cache_control: { type: 'ephemeral' } },
        ],
        messages: [oUser('q')],
      })['systemInstruction'],
    ).toEqual({ parts: [text('X'), text('Y')] })
  })

  it('ROLE-02: tool, tool, user become one user content: 2 functionResponse parts, then the text', () => {
    const body = oToG({
      model: 'm',
      messages: [
        oUser('q'),
        { role: 'assistant', content: null, tool_calls: [oCall('a', 'f'), oCall('b', 'g')] },
        { role: 'tool', tool_call_id: 'a', content: '1' },
        { role: 'tool', tool_call_id: 'b', content: '2' },
        oUser('thanks'),
      ],
    })
    expect(body['contents'].map((content: { role: string }) => content.role)).toEqual([
      'user',
      'model',
      'user',
    ])
    expect(body['contents'][2].parts).toEqual([
      { functionResponse: { name: 'f', response: { result: '1' } } },
      { functionResponse: { name: 'g', response: { result: '2' } } },
      text('thanks'),
    ])
  })

  it('ROLE-02: consecutive user messages merge into one content', () => {
    expect(oToG({ model: 'm', messages: [oUser('a'), oUser('b')] })['contents']).toEqual([
      { role: 'user', parts: [text('a'), text('b')] },
    ])
  })

  it('ROLE-03 (pinned: drop): a trailing assistant prefill is not sent', () => {
    const body = oToG({
      model: 'm',
      messages: [oUser('q'), { role: 'assistant', content: 'Answer: ' }],
    })
    expect(body['contents']).toEqual([{ role: 'user', parts: [text('q')] }])
  })

  it('CNT-02: data-URL images become inlineData, URLs fileData with a guessed mime type', () => {
    const body = oToG({
      model: 'm',
      messages: [
        oUser([
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO', detail: 'high' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.PNG?x=1' } },
          { type: 'image_url', image_url: { url: 'https://example.com/image' } },
        ]),
      ],
    })
    expect(body['contents'][0].parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a.PNG?x=1' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/image' } },
    ])
  })

  it('CNT-04: documents become inlineData or fileData; a text document stays a document', () => {
    const body = aToG({
      model: 'm',
      max_tokens: 5,
      messages: [
        oUser([
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' },
          },
          { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
        ]),
      ],
    })
    expect(body['contents'][0].parts).toEqual([
      { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
      { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } },
      { inlineData: { mimeType: 'text/plain', data: 'aMOpbGxv' } },
    ])
  })

  it('TOOL-D-01/02: all tools go in one functionDeclarations entry; no parameters when there are none', () => {
    const body = oToG({
      model: 'm',
      messages: [oUser('q')],
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
        {
          type: 'function',
          function: { name: 'c', parameters: { type: 'object', properties: {} } },
        },
      ],
    })
    expect(body['tools']).toEqual([
      {
        functionDeclarations: [
          {
            name: 'a',
            description: 'd',
            parametersJsonSchema: { type: 'object', properties: { x: { type: 'string' } } },
          },
          { name: 'b' },
          { name: 'c' },
        ],
      },
    ])
  })

  it('TOOL-D-04 (bug 6): keywords Gemini rejects are dropped recursively; property names survive', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        const: { type: 'string', const: 'fixed', default: 'fixed' },
        additionalProperties: { type: 'boolean' },
        count: { type: 'integer', exclusiveMinimum: 0, minimum: 1 },
        map: { type: 'object', propertyNames: { pattern: '^a' }, additionalProperties: true },
        list: {
          type: 'array',
          items: { type: 'object', properties: { a: { $ref: '#/definitions/A' } } },
          minItems: 1,
        },
        either: { anyOf: [{ type: 'string', pattern: 'x' }, { type: 'null' }] },
      },
      required: ['const'],
      definitions: { A: { type: 'string', format: 'uri', examples: ['x'] } },
      input_examples: [{}],
    }
    const body = aToG({
      model: 'm',
      max_tokens: 5,
      messages: [oUser('q')],
      tools: [{ name: 'f', input_schema: schema }],
    })
    const parameters = body['tools'][0].functionDeclarations[0].parametersJsonSchema
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        const: { type: 'string', enum: ['fixed'] },
        additionalProperties: { type: 'boolean' },
        count: { type: 'integer', minimum: 1 },
        map: { type: 'object' },
        list: {
          type: 'array',
          items: { type: 'object', properties: { a: { $ref: '#/$defs/A' } } },
          minItems: 1,
        },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['const'],
      $defs: { A: { type: 'string', format: 'uri' } },
    })
    for (const keyword of [
      '$schema',
      'exclusiveMinimum',
      'propertyNames',
      'input_examples',
      '"default"',
      '"pattern"',
    ]) {
      expect(JSON.stringify(parameters)).not.toContain(keyword)
    }
  })

  it('TOOL-D-03 (bug 7): names Gemini rejects are rewritten the same way everywhere', () => {
    const long = 'mcp__server__' + 'x'.repeat(60)
    const body = oToG({
      model: 'm',
      messages: [
        oUser('q'),
        { role: 'assistant', content: null, tool_calls: [oCall('c1', '1password')] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
      tools: [
        { type: 'function', function: { name: '1password' } },
        { type: 'function', function: { name: long } },
        { type: 'function', function: { name: 'a-b_c' } },
      ],
      tool_choice: { type: 'function', function: { name: '1password' } },
    })
    const names = body['tools'][0].functionDeclarations.map((tool: { name: string }) => tool.name)
    expect(names).toEqual(['_1password', long.slice(0, 64), 'a-b_c'])
    expect(body['contents'][1].parts[0].functionCall.name).toBe('_1password')
    expect(body['contents'][2].parts[0].functionResponse.name).toBe('_1password')
    expect(body['toolConfig']).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['_1password'] },
    })
  })

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
    [
      { type: 'function', function: { name: 'a' } },
      { mode: 'ANY', allowedFunctionNames: ['a'] },
    ],
  ])('TC-01: tool_choice %j becomes functionCallingConfig %j', (choice, expected) => {
    const body = oToG({
      model: 'm',
      messages: [oUser('q')],
      tools: [{ type: 'function', function: { name: 'a' } }],
      tool_choice: choice,
      parallel_tool_calls: false,
    })
    expect(body['toolConfig']).toEqual({ functionCallingConfig: expected })
  })

  it('TC-01: Anthropic any becomes ANY', () => {
    const body = aToG({
      model: 'm',
      max_tokens: 5,
      messages: [oUser('q')],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
    })
    expect(body['toolConfig']).toEqual({ functionCallingConfig: { mode: 'ANY' } })
  })

  it('TOOL-H-06: 3 parallel calls are answered by 3 functionResponse parts in call order', () => {
    const body = aToG({
      model: 'm',
      max_tokens: 5,
      messages: [
        oUser('q'),
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: 'read', input: { p: 1 } },
            { type: 'tool_use', id: 't2', name: 'read', input: { p: 2 } },
            { type: 'tool_use', id: 't3', name: 'stat', input: {} },
          ],
        },
        oUser([
          { type: 'tool_result', tool_use_id: 't3', content: '{"size": 4}' },
          { type: 'tool_result', tool_use_id: 't2', content: 'two', is_error: true },
          { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '[1]' }] },
          { type: 'text', text: 'go on' },
        ]),
      ],
    })
    expect(body['contents'][2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'read', response: { result: '[1]' } } },
        { functionResponse: { name: 'read', response: { error: 'two' } } },
        { functionResponse: { name: 'stat', response: { size: 4 } } },
        text('go on'),
      ],
    })
  })

  it('TOOL-H-06: images of a tool result follow the functionResponse parts', () => {
    const body = aToG({
      model: 'm',
      max_tokens: 5,
      messages: [
        oUser('q'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'shot', input: {} }] },
        oUser([
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [
              { type: 'text', text: 'done' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
            ],
          },
        ]),
      ],
    })
    expect(body['contents'][2].parts).toEqual([
      { functionResponse: { name: 'shot', response: { result: 'done' } } },
      { inlineData: { mimeType: 'image/png', data: 'AAA' } },
    ])
  })

  it('TOOL-H-08 (pinned: 400): a call without a result, or a result without a call, is refused', () => {
    expect(() =>
      oToG({
        model: 'm',
        messages: [
          oUser('q'),
          { role: 'assistant', content: null, tool_calls: [oCall('a', 'f'), oCall('b', 'f')] },
          { role: 'tool', tool_call_id: 'a', content: '1' },
        ],
      }),
    ).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('`b`') }))
    expect(() =>
      oToG({
        model: 'm',
        messages: [oUser('q'), { role: 'tool', tool_call_id: 'zz', content: '1' }],
      }),
    ).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('`zz`') }))
  })

  it('TOOL-H-09 (bug 8): a signature carried in the tool-call id returns on its call', () => {
    const id = encodeGeminiToolCallId('CiQB+/x=', 'call_9')
    const body = oToG({
      model: 'm',
      messages: [
        oUser('q'),
        { role: 'assistant', content: null, tool_calls: [oCall(id, 'f'), oCall('plain', 'g')] },
        { role: 'tool', tool_call_id: id, content: 'r1' },
        { role: 'tool', tool_call_id: 'plain', content: 'r2' },
      ],
    })
    expect(body['contents'][1].parts).toEqual([
      { functionCall: { name: 'f', args: {} }, thoughtSignature: 'CiQB+/x=' },
      { functionCall: { name: 'g', args: {} } },
    ])
  })

  it('TOOL-H-09: a model turn whose first call has no signature gets the skip sentinel there only', () => {
    const body = oToG({
      model: 'm',
      messages: [
        oUser('q'),
        { role: 'assistant', content: 'Checking.', tool_calls: [oCall('a', 'f'), oCall('b', 'g')] },
        { role: 'tool', tool_call_id: 'a', content: '1' },
        { role: 'tool', tool_call_id: 'b', content: '2' },
      ],
    })
    expect(body['contents'][1].parts).toEqual([
      text('Checking.'),
      {
        functionCall: { name: 'f', args: {} },
        thoughtSignature: 'skip_thought_signature_validator',
      },
      { functionCall: { name: 'g', args: {} } },
    ])
  })

  it('TOOL-H-09: G → canonical → G keeps signatures on calls and thoughts byte for byte', () => {
    const contents = [
      gUser(text('q')),
      gModel(
        { text: 'plan', thought: true, thoughtSignature: 'c2lnMQ==' },
        call('f', { a: 1 }, { thoughtSignature: 'c2lnMg==' }),
        call('f', { a: 2 }),
      ),
      gUser(answer('f', { result: 'x' }), answer('f', { ok: true })),
    ]
    expect(encodeGeminiRequest(fromGemini({ contents }))['contents']).toEqual(contents)
  })

  it('TOOL-H-10: Anthropic thinking is never sent to Gemini', () => {
    const body = aToG({
      model: 'm',
      max_tokens: 5,
      messages: [
        oUser('q'),
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'EqQBCkYI' },
            { type: 'redacted_thinking', data: 'xyz' },
            { type: 'text', text: 'A' },
          ],
        },
        oUser('next'),
      ],
    })
    expect(body['contents'][1]).toEqual({ role: 'model', parts: [text('A')] })
  })

  it('GEN-01..05: limits and sampling settings go to generationConfig; no model or stream in the body', () => {
    const body = oToG({
      model: 'm',
      messages: [oUser('q')],
      max_completion_tokens: 100,
      temperature: 1.5,
      top_p: 0.5,
      stop: 'END',
      seed: 3,
      user: 'u1',
      stream: true,
    })
    expect(body).toEqual({
      contents: [{ role: 'user', parts: [text('q')] }],
      generationConfig: {
        maxOutputTokens: 100,
        temperature: 1.5,
        topP: 0.5,
        stopSequences: ['END'],
        seed: 3,
      },
    })
    expect(
      aToG({ model: 'm', max_tokens: 5, top_k: 40, messages: [oUser('q')] })['generationConfig'],
    ).toEqual({ maxOutputTokens: 5, topK: 40 })
  })

  it('JSON-04: json_object is the mime type alone; json_schema adds a sanitised responseJsonSchema', () => {
    const base = { model: 'm', messages: [oUser('q')] }
    expect(oToG({ ...base, response_format: { type: 'json_object' } })['generationConfig']).toEqual(
      {
        responseMimeType: 'application/json',
      },
    )
    expect(
      oToG({
        ...base,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'r',
            strict: true,
            schema: {
              type: 'object',
              properties: { n: { type: 'number' } },
              additionalProperties: false,
            },
          },
        },
      })['generationConfig'],
    ).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { n: { type: 'number' } } },
    })
  })

  it.each([
    ['minimal', 512],
    ['low', 1024],
    ['medium', 8192],
    ['high', 24576],
  ])('RSN-03 (pinned): reasoning_effort %s becomes a thinking budget of %i', (effort, budget) => {
    expect(
      oToG({ model: 'm', messages: [oUser('q')], reasoning_effort: effort })['generationConfig'],
    ).toEqual({ thinkingConfig: { thinkingBudget: budget, includeThoughts: true } })
  })

  it('RSN-03: effort none turns thinking off; an Anthropic budget is kept; adaptive without an effort is dynamic', () => {
    expect(
      oToG({ model: 'm', messages: [oUser('q')], reasoning_effort: 'none' })['generationConfig'],
    ).toEqual({ thinkingConfig: { thinkingBudget: 0 } })
    expect(
      aToG({
        model: 'm',
        max_tokens: 9000,
        messages: [oUser('q')],
        thinking: { type: 'enabled', budget_tokens: 5000 },
      })['generationConfig'],
    ).toEqual({
      maxOutputTokens: 9000,
      thinkingConfig: { thinkingBudget: 5000, includeThoughts: true },
    })
    expect(
      aToG({ model: 'm', max_tokens: 10, messages: [oUser('q')], thinking: { type: 'adaptive' } })[
        'generationConfig'
      ].thinkingConfig,
    ).toEqual({ thinkingBudget: -1, includeThoughts: true })
  })
})
