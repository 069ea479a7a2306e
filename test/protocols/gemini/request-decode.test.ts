import { describe, expect, it } from 'vitest'
import { encodeOpenAIRequest } from '../../../src/protocols/openai/request-encode'
import {
  countTokensContentRequest,
  geminiCountTokensBodySchema,
  geminiGenerateContentBodySchema,
} from '../../../src/protocols/gemini/request-schema'
import { decodeGeminiToolCallId } from '../../../src/protocols/gemini/tool-call-id'
import { fromGemini, gToO, gToA, text, gUser, gModel, call, answer, oCall } from './request-helpers'

describe('generateContent → canonical → chat-completions / messages', () => {
  it('INGEST-G-01: snake_case and camelCase bodies produce the same upstream requests', () => {
    const snake = {
      system_instruction: { parts: [text('S')] },
      contents: [
        gUser({ inline_data: { mime_type: 'image/png', data: 'AAA' } }, text('q')),
        { role: 'model', parts: [{ function_call: { name: 'f', args: { a: 1 } } }] },
        gUser({ function_response: { name: 'f', response: { result: 'ok' } } }),
      ],
      tools: [{ function_declarations: [{ name: 'f', parameters: { type: 'OBJECT' } }] }],
      tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['f'] } },
      generation_config: { max_output_tokens: 50, stop_sequences: ['x'], top_k: 3 },
    }
    const camel = {
      systemInstruction: { parts: [text('S')] },
      contents: [
        gUser({ inlineData: { mimeType: 'image/png', data: 'AAA' } }, text('q')),
        gModel(call('f', { a: 1 })),
        gUser(answer('f', { result: 'ok' })),
      ],
      tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: { maxOutputTokens: 50, stopSequences: ['x'], topK: 3 },
    }
    expect(gToO(snake)).toEqual(gToO(camel))
    expect(gToA(snake)).toEqual(gToA(camel))
    expect(gToA(snake)['max_tokens']).toBe(50)
    expect(gToA(snake)['tool_choice']).toEqual({ type: 'tool', name: 'f' })
  })

  it('INGEST-G-01: user data keeps its snake_case keys (args, response, property names)', () => {
    const body = gToO({
      contents: [
        gUser(text('q')),
        { role: 'model', parts: [{ function_call: { name: 'f', args: { file_path: 'a' } } }] },
        gUser({ function_response: { name: 'f', response: { exit_code: 0 } } }),
      ],
      tools: [
        {
          function_declarations: [
            {
              name: 'f',
              parameters: {
                type: 'OBJECT',
                properties: { file_path: { type: 'STRING', max_length: '9' } },
                required: ['file_path'],
              },
            },
            {
              name: 'g',
              parameters_json_schema: {
                type: 'object',
                properties: { max_items: { type: 'integer' } },
              },
            },
          ],
        },
      ],
    })
    expect(body['messages'][1].tool_calls[0].function.arguments).toBe('{"file_path":"a"}')
    expect(body['messages'][2].content).toBe('{"exit_code":0}')
    expect(body['tools'][0].function.parameters).toEqual({
      type: 'object',
      properties: { file_path: { type: 'string', maxLength: 9 } },
      required: ['file_path'],
    })
    expect(body['tools'][1].function.parameters).toEqual({
      type: 'object',
      properties: { max_items: { type: 'integer' } },
    })
  })

  it('INGEST-G-01: when both spellings are sent, the camelCase field wins', () => {
    const request = fromGemini({
      contents: [gUser(text('q'))],
      generation_config: { temperature: 0.1 },
      generationConfig: { temperature: 0.9 },
    })
    expect(request.temperature).toBe(0.9)
  })

  it('SYS-07: systemInstruction text parts become the system prompt', () => {
    const body = {
      systemInstruction: { role: 'system', parts: [text('A'), text(''), text('B')] },
      contents: [gUser(text('q'))],
    }
    expect(gToO(body)['messages'][0]).toEqual({ role: 'system', content: 'AB' })
    expect(gToA(body)['system']).toEqual([
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B' },
    ])
  })

  it('SYS-07 (pinned: 400): a non-text systemInstruction part is refused naming the part', () => {
    expect(() =>
      fromGemini({
        systemInstruction: { parts: [text('A'), { inlineData: { mimeType: 'image/png' } }] },
        contents: [gUser(text('q'))],
      }),
    ).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'systemInstruction.parts[1]' }),
    )
  })

  it('ROLE-06: a content without a role is a user turn', () => {
    expect(gToO({ contents: [{ parts: [text('hi')] }] })['messages']).toEqual([
      { role: 'user', content: 'hi' },
    ])
  })

  it('CNT-01: several text parts of a turn stay in order', () => {
    expect(gToA({ contents: [gUser(text('a'), text('b'))] })['messages'][0].content).toEqual([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ])
  })

  it('CNT-02: inlineData and fileData images become base64 and URL images', () => {
    const body = {
      contents: [
        gUser(
          { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
          { fileData: { fileUri: 'https://example.com/dog.webp' } },
        ),
      ],
    }
    expect(gToO(body)['messages'][0].content).toEqual([
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
      { type: 'image_url', image_url: { url: 'https://example.com/dog.webp' } },
    ])
    expect(gToA(body)['messages'][0].content[0]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBO' },
    })
  })

  it('CNT-04: a PDF becomes a document, plain text a text document', () => {
    const body = {
      contents: [
        gUser(
          { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
          { inlineData: { mimeType: 'text/plain', data: btoa('hello') } },
        ),
      ],
    }
    expect(gToA(body)['messages'][0].content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello' } },
    ])
    expect(gToO(body)['messages'][0].content[0]).toEqual({
      type: 'file',
      file: { file_data: 'data:application/pdf;base64,JVBE' },
    })
  })

  it('CNT-05: audio or video is refused with 400 naming the part', () => {
    expect(() =>
      fromGemini({
        contents: [gUser(text('q'), { inlineData: { mimeType: 'audio/wav', data: 'UklG' } })],
      }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'contents[0].parts[1]' }))
    expect(() =>
      fromGemini({
        contents: [gUser({ fileData: { mimeType: 'video/mp4', fileUri: 'gs://b/v.mp4' } })],
      }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'contents[0].parts[0]' }))
  })

  it('TOOL-D-01/02: declarations of every tools entry become tools; built-in tools are dropped', () => {
    const body = gToO({
      contents: [gUser(text('q'))],
      tools: [
        { functionDeclarations: [{ name: 'a', description: 'd' }] },
        { googleSearch: {} },
        {
          functionDeclarations: [
            { name: 'b', parametersJsonSchema: { type: 'object', required: [] } },
          ],
        },
      ],
    })
    expect(body['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'a', description: 'd', parameters: { type: 'object', properties: {} } },
      },
      { type: 'function', function: { name: 'b', parameters: { type: 'object', required: [] } } },
    ])
  })

  it('TOOL-D-07: OpenAPI types are lower-cased and nullable becomes a null type', () => {
    const body = gToA({
      contents: [gUser(text('q'))],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'f',
              parameters: {
                type: 'OBJECT',
                properties: {
                  tags: { type: 'ARRAY', items: { type: 'STRING' }, nullable: true },
                  mode: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }], nullable: true },
                },
                propertyOrdering: ['tags', 'mode'],
              },
            },
          ],
        },
      ],
    })
    expect(body['tools'][0].input_schema).toEqual({
      type: 'object',
      properties: {
        tags: { type: ['array', 'null'], items: { type: 'string' } },
        mode: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
      },
    })
  })

  it('TOOL-H-07: calls without ids get per-position ids and responses pair by name in order', () => {
    const body = gToO({
      contents: [
        gUser(text('q')),
        gModel(call('f', { n: 1 }), call('g'), call('f', { n: 2 })),
        gUser(
          answer('f', { result: 'one' }),
          answer('g', { result: 'gee' }),
          answer('f', { result: 'two' }),
        ),
      ],
    })
    expect(body['messages'][1].tool_calls).toEqual([
      oCall('call_1_0', 'f', '{"n":1}'),
      oCall('call_1_1', 'g', '{}'),
      oCall('call_1_2', 'f', '{"n":2}'),
    ])
    expect(body['messages'].slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1_0', content: 'one' },
      { role: 'tool', tool_call_id: 'call_1_1', content: 'gee' },
      { role: 'tool', tool_call_id: 'call_1_2', content: 'two' },
    ])
    // The same history decodes to the same ids on every request.
    expect(
      gToO({ contents: [gUser(text('q')), gModel(call('f'))] })['messages'][1].tool_calls[0].id,
    ).toBe('call_1_0')
  })

  it('TOOL-H-07: a functionResponse id picks its call before the name does', () => {
    const body = gToA({
      contents: [
        gUser(text('q')),
        gModel(
          { functionCall: { id: 'x1', name: 'f', args: {} } },
          { functionCall: { id: 'x2', name: 'f', args: {} } },
        ),
        gUser(
          { functionResponse: { id: 'x2', name: 'f', response: { result: 'second' } } },
          { functionResponse: { id: 'x1', name: 'f', response: { result: 'first' } } },
        ),
      ],
    })
    expect(body['messages'][2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'x2', content: [{ type: 'text', text: 'second' }] },
      { type: 'tool_result', tool_use_id: 'x1', content: [{ type: 'text', text: 'first' }] },
    ])
  })

  it.each([
    [{ result: 'plain' }, 'plain'],
    [{ output: 'out' }, 'out'],
    [{ temperature: 21, unit: 'C' }, '{"temperature":21,"unit":"C"}'],
    [{ result: { nested: true } }, '{"result":{"nested":true}}'],
  ])('TOOL-H-06 (reverse): response %j becomes tool text %j', (response, expected) => {
    const body = gToO({
      contents: [gUser(text('q')), gModel(call('f')), gUser(answer('f', response))],
    })
    expect(body['messages'][2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_1_0',
      content: expected,
    })
  })

  it('TOOL-H-06 (reverse): an {error} response is an error result', () => {
    const history = {
      contents: [gUser(text('q')), gModel(call('f')), gUser(answer('f', { error: 'boom' }))],
    }
    expect(gToA(history)['messages'][2].content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'call_1_0',
      content: [{ type: 'text', text: 'boom' }],
      is_error: true,
    })
    expect(gToO(history)['messages'][2].content).toBe('Error: boom')
  })

  it('TOOL-H-08 (pinned: 400): a functionResponse without a call is refused', () => {
    expect(() =>
      fromGemini({ contents: [gUser(text('q')), gModel(call('f')), gUser(answer('g', {}))] }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'contents[2].parts[0]' }))
  })

  it('TOOL-H-08 (pinned: 400): a call left unanswered by the next user turn is refused', () => {
    expect(() =>
      fromGemini({
        contents: [gUser(text('q')), gModel(call('f'), call('g')), gUser(answer('f', {}))],
      }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'contents[1].parts[1]' }))
    // A model turn ending the conversation is not yet answered, and that is fine.
    expect(() => fromGemini({ contents: [gUser(text('q')), gModel(call('f'))] })).not.toThrow()
  })

  it('TOOL-H-09: a function call thought signature travels in the id and on the part', () => {
    const request = fromGemini({
      contents: [
        gUser(text('q')),
        gModel(call('f', {}, { thoughtSignature: 'CiQB+/x=' })),
        gUser(answer('f', { result: 'r' })),
      ],
    })
    const part = request.messages[1]!.content[0] as { id: string; signature?: unknown }
    expect(part.id).toMatch(/^[a-zA-Z0-9_-]+$/)
    expect(decodeGeminiToolCallId(part.id)).toEqual({ signature: 'CiQB+/x=', id: 'call_1_0' })
    expect(part.signature).toEqual({ protocol: 'gemini', value: 'CiQB+/x=' })
    expect(request.messages[2]).toMatchObject({ role: 'tool', content: [{ toolCallId: part.id }] })
  })

  it('RSN: thoughts of a model turn are reasoning, never sent as Anthropic thinking', () => {
    const body = {
      contents: [
        gUser(text('q')),
        gModel({ text: 'hmm', thought: true, thoughtSignature: 'sig' }, text('A')),
        gUser(text('next')),
      ],
    }
    expect(fromGemini(body).messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hmm', signature: { protocol: 'gemini', value: 'sig' } },
        { type: 'text', text: 'A' },
      ],
    })
    expect(gToA(body)['messages'][1].content).toEqual([{ type: 'text', text: 'A' }])
  })

  it.each([
    ['AUTO', [], 'auto', { type: 'auto' }],
    ['NONE', [], 'none', { type: 'none' }],
    ['ANY', [], 'required', { type: 'any' }],
    ['ANY', ['a'], { type: 'function', function: { name: 'a' } }, { type: 'tool', name: 'a' }],
    ['ANY', ['a', 'b'], 'required', { type: 'any' }],
  ])(
    'TC-01/TC-05: mode %s with allowed names %j becomes %j / %j',
    (mode, names, openai, anthropic) => {
      const body = {
        contents: [gUser(text('q'))],
        tools: [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }] }],
        toolConfig: { functionCallingConfig: { mode, allowedFunctionNames: names } },
      }
      expect(gToO(body)['tool_choice']).toEqual(openai)
      expect(gToA(body)['tool_choice']).toEqual(anthropic)
    },
  )

  it('GEN-01..05: generation settings reach both upstreams; penalties and top_k where absent are dropped', () => {
    const body = {
      contents: [gUser(text('q'))],
      generationConfig: {
        maxOutputTokens: 300,
        temperature: 0.4,
        topP: 0.9,
        topK: 20,
        stopSequences: ['END'],
        seed: 7,
        presencePenalty: 0.5,
      },
    }
    expect(gToO(body)).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'q' }],
      max_tokens: 300,
      temperature: 0.4,
      top_p: 0.9,
      stop: ['END'],
      seed: 7,
    })
    expect(gToA(body)).toMatchObject({
      max_tokens: 300,
      temperature: 0.4,
      top_p: 0.9,
      top_k: 20,
      stop_sequences: ['END'],
    })
  })

  it('GEN-06 (pinned: 400): candidateCount above 1 is refused', () => {
    expect(() =>
      fromGemini({ contents: [gUser(text('q'))], generationConfig: { candidateCount: 2 } }),
    ).toThrow(expect.objectContaining({ status: 400, param: 'generationConfig.candidateCount' }))
  })

  it('GEN-08: the stream flag comes from the caller', () => {
    expect(encodeOpenAIRequest(fromGemini({ contents: [gUser(text('q'))] }, true))).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    })
  })

  it('GEN-09: safetySettings and cachedContent are dropped', () => {
    const body = gToO({
      contents: [gUser(text('q'))],
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      cachedContent: 'cachedContents/abc',
    })
    expect(Object.keys(body).sort()).toEqual(['messages', 'model'])
  })

  it('JSON-05: JSON mime type without a schema is JSON mode, with one structured output', () => {
    const base = { contents: [gUser(text('q'))] }
    expect(
      gToO({ ...base, generationConfig: { responseMimeType: 'application/json' } })[
        'response_format'
      ],
    ).toEqual({ type: 'json_object' })
    expect(
      gToO({
        ...base,
        generationConfig: {
          responseMimeType: 'application/json',
          responseSchema: { type: 'OBJECT', properties: { n: { type: 'NUMBER' } } },
        },
      })['response_format'],
    ).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        schema: { type: 'object', properties: { n: { type: 'number' } } },
      },
    })
    expect(
      gToO({
        ...base,
        generationConfig: {
          responseMimeType: 'application/json',
          responseJsonSchema: { type: 'array', items: { type: 'string' } },
        },
      })['response_format'].json_schema.schema,
    ).toEqual({ type: 'array', items: { type: 'string' } })
  })

  it('JSON-05 (pinned: 400): text/x.enum output is refused', () => {
    expect(() =>
      fromGemini({
        contents: [gUser(text('q'))],
        generationConfig: { responseMimeType: 'text/x.enum' },
      }),
    ).toThrow(expect.objectContaining({ param: 'generationConfig.responseMimeType' }))
  })

  it.each([
    [{ thinkingBudget: 0 }, undefined, { type: 'disabled' }],
    [{ thinkingBudget: -1 }, 'medium', { type: 'enabled', budget_tokens: 2048 }],
    [{ thinkingBudget: 5000 }, 'medium', { type: 'enabled', budget_tokens: 5000 }],
    [{ thinkingBudget: 1024 }, 'low', { type: 'enabled', budget_tokens: 1024 }],
    [{ thinkingLevel: 'HIGH' }, 'high', { type: 'enabled', budget_tokens: 4096 }],
    [{ thinkingLevel: 'low' }, 'low', { type: 'enabled', budget_tokens: 1024 }],
    // Asking to see thoughts is not asking for thinking (Gemini CLI sends it on every request).
    [{ includeThoughts: true }, undefined, undefined],
  ])(
    'RSN-04: thinkingConfig %j becomes effort %s / thinking %j',
    (thinkingConfig, effort, thinking) => {
      const body = { contents: [gUser(text('q'))], generationConfig: { thinkingConfig } }
      expect(gToO(body)['reasoning_effort']).toBe(effort)
      expect(gToA(body)['thinking']).toEqual(thinking)
    },
  )

  it('CT-G-01: countTokens takes {contents} or {generateContentRequest}, never both or neither', () => {
    const contents = [gUser(text('q'))]
    expect(countTokensContentRequest(geminiCountTokensBodySchema.parse({ contents }))).toEqual({
      contents,
    })
    const full = geminiCountTokensBodySchema.parse({
      generate_content_request: {
        model: 'models/gemini-2.5-flash',
        contents,
        system_instruction: { parts: [text('S')] },
        tools: [{ function_declarations: [{ name: 'f' }] }],
      },
    })
    expect(countTokensContentRequest(full)).toEqual({
      contents,
      systemInstruction: { parts: [text('S')] },
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
    })
    expect(geminiCountTokensBodySchema.safeParse({}).success).toBe(false)
    expect(
      geminiCountTokensBodySchema.safeParse({ contents, generateContentRequest: { contents } })
        .success,
    ).toBe(false)
  })

  it('schema: empty contents and a maxOutputTokens of 0 are refused', () => {
    expect(geminiGenerateContentBodySchema.safeParse({ contents: [] }).success).toBe(false)
    expect(
      geminiGenerateContentBodySchema.safeParse({
        contents: [gUser(text('q'))],
        generationConfig: { maxOutputTokens: 0 },
      }).success,
    ).toBe(false)
  })
})
