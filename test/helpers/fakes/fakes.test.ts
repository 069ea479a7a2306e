import { describe, expect, it } from 'vitest'
import {
  anthropicModelAnswer,
  checkAnthropicRequest,
  recordScriptedThinking,
} from './anthropic-fake'
import { checkGeminiRequest, geminiModelAnswer } from './gemini-fake'
import { checkOpenAIRequest, openAIModelAnswer } from './openai-fake'
import { sampleOf } from './schema-sample'

const user = [{ role: 'user', content: 'Hi' }]
const messageOf = (error: ReturnType<typeof checkOpenAIRequest>) =>
  JSON.stringify(error?.body ?? null)

describe('the OpenAI fake', () => {
  it.each([
    [{ model: 'gpt-5', messages: user, max_tokens: 100 }, "Use 'max_completion_tokens' instead"],
    [{ model: 'o3', messages: user, temperature: 0.2 }, 'Only the default (1) value is supported'],
    [
      { model: 'gpt-4.1', messages: user, reasoning_effort: 'high' },
      "'reasoning_effort' is not supported",
    ],
    [
      { model: 'gpt-5.1', messages: user, reasoning_effort: 'minimal' },
      "Supported values are: 'none', 'low'",
    ],
    [{ model: 'o3-mini', messages: user, reasoning_effort: 'xhigh' }, 'Supported values are'],
    [
      { model: 'gpt-5.2', messages: user, reasoning_effort: 'high', temperature: 0.5 },
      "'temperature' does not support 0.5",
    ],
    [{ model: 'gpt-4o', messages: user, max_tokens: 32000 }, 'at most 16384 completion tokens'],
    [
      { model: 'gpt-4o', messages: user, response_format: { type: 'json_object' } },
      "must contain the word 'json'",
    ],
    [
      {
        model: 'gpt-4o',
        messages: user,
        response_format: { type: 'json_schema', json_schema: { name: 'a b', schema: {} } },
      },
      'does not match pattern',
    ],
    [
      {
        model: 'gpt-4o',
        messages: user,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'a', strict: true, schema: { type: 'object', properties: {} } },
        },
      },
      "'additionalProperties' is required to be supplied and to be false",
    ],
    [
      {
        model: 'deepseek-chat',
        messages: user,
        response_format: { type: 'json_schema', json_schema: { name: 'a', schema: {} } },
      },
      'response_format type is unavailable',
    ],
    [
      {
        model: 'gpt-4o',
        messages: [
          ...user,
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'x'.repeat(41), type: 'function', function: { name: 'f', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'x'.repeat(41), content: 'r' },
        ],
      },
      'maximum length 40',
    ],
    [
      {
        model: 'deepseek-reasoner',
        messages: [
          ...user,
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c', content: 'r' },
        ],
      },
      'Missing `reasoning_content` field',
    ],
  ])('refuses %j', (body, message) => {
    const error = checkOpenAIRequest(body)
    expect(error?.status).toBe(400)
    expect(messageOf(error)).toContain(message)
    expect(error?.body).toMatchObject({ error: { type: 'invalid_request_error' } })
  })

  it.each([
    { model: 'gpt-5', messages: user, max_completion_tokens: 100, reasoning_effort: 'minimal' },
    { model: 'gpt-5.1', messages: user, reasoning_effort: 'none', temperature: 0.3 },
    { model: 'gpt-4o', messages: user, temperature: 1.7, max_tokens: 16384 },
    { model: 'my-local-model', messages: user, max_tokens: 999999, reasoning_effort: 'high' },
  ])('accepts %j', (body) => {
    expect(checkOpenAIRequest(body)).toBeUndefined()
  })

  it('enforces reasoning in tool loops: DeepSeek’s missing and altered, strict servers’ members', () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]
    const first = openAIModelAnswer({ model: 'deepseek-v4-pro', messages: user, tools }) as {
      json: any
    }
    const message = first.json.choices[0].message
    expect(message.reasoning_content).toMatch(/^Thinking about 1 messages/)
    const history = (assistant: object) => ({
      model: 'deepseek-v4-pro',
      tools,
      messages: [
        ...user,
        assistant,
        { role: 'tool', tool_call_id: message.tool_calls[0].id, content: 'r' },
      ],
    })
    expect(checkOpenAIRequest(history(message))).toBeUndefined()
    const { reasoning_content: _dropped, ...without } = message
    expect(messageOf(checkOpenAIRequest(history(without)))).toContain(
      'Missing `reasoning_content` field in the assistant message at message index 1',
    )
    expect(
      messageOf(
        checkOpenAIRequest(
          history({ ...message, reasoning_content: `${message.reasoning_content} ` }),
        ),
      ),
    ).toContain('must be passed back unaltered')
    // Thinking off: no rule.
    expect(
      checkOpenAIRequest({ ...history(without), thinking: { type: 'disabled' } }),
    ).toBeUndefined()
    expect(
      checkOpenAIRequest({
        model: 'house-chat-1',
        messages: [...user, { role: 'assistant', content: 'x', reasoning_content: 'y' }],
      }),
    ).toEqual({
      status: 400,
      body: {
        message:
          "messages.1.assistant.reasoning_content: property 'messages.1.assistant.reasoning_content' is unsupported",
        type: 'invalid_request_error',
        param: 'validation_error',
        code: 'wrong_api_format',
      },
    })
  })

  it('answers a tool call, then text after the tool result, with usage', () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ]
    const first = openAIModelAnswer({ model: 'gpt-4o', messages: user, tools }) as { json: any }
    const call = first.json.choices[0].message.tool_calls[0]
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"sample"}' })
    const second = openAIModelAnswer({
      model: 'gpt-4o',
      tools,
      messages: [
        ...user,
        first.json.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny' },
      ],
    }) as { json: any }
    expect(second.json.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { content: 'Answer from gpt-4o after sunny.' },
    })
    expect(second.json.usage.total_tokens).toBeGreaterThan(0)
  })
})

describe('the Anthropic fake', () => {
  const base = {
    model: 'claude-sonnet-4-5',
    max_tokens: 2000,
    messages: [{ role: 'user', content: 'Hi' }],
  }
  it.each([
    [{ ...base, max_tokens: 64001 }, '64001 > 64000'],
    [
      { ...base, thinking: { type: 'enabled', budget_tokens: 512 } },
      'greater than or equal to 1024',
    ],
    [
      { ...base, thinking: { type: 'enabled', budget_tokens: 2000 } },
      'must be greater than `thinking.budget_tokens`',
    ],
    [
      {
        ...base,
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        temperature: 0.5,
      },
      'may only be set to 1',
    ],
    [{ ...base, temperature: 0.5, top_p: 0.9 }, 'cannot both be specified'],
    [
      { ...base, model: 'claude-opus-4-7', thinking: { type: 'enabled', budget_tokens: 1024 } },
      'is not supported for this model. Use \\"thinking.type.adaptive',
    ],
    [{ ...base, model: 'claude-opus-4-7', temperature: 0.2 }, 'not supported for this model'],
    [
      { ...base, model: 'claude-opus-5-5', thinking: { type: 'disabled' } },
      'disabled\\" is not supported for this model',
    ],
    [
      {
        ...base,
        model: 'claude-opus-5-5',
        tools: [{ name: 'f', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any' },
      },
      'Forced tool use is not supported',
    ],
    [
      {
        ...base,
        model: 'claude-3-5-haiku-20241022',
        output_config: {
          format: { type: 'json_schema', schema: { type: 'object', additionalProperties: false } },
        },
      },
      'does not support output_config.format',
    ],
    [
      {
        ...base,
        output_config: {
          format: { type: 'json_schema', schema: { type: 'object', properties: {} } },
        },
      },
      "'additionalProperties' must be explicitly set to false",
    ],
    [
      {
        ...base,
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'r' }],
          },
        ],
      },
      'Expected `thinking` or `redacted_thinking`, but found `tool_use`',
    ],
    [
      {
        ...base,
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 't', signature: 'forged' },
              { type: 'text', text: 'x' },
            ],
          },
          { role: 'user', content: 'Again' },
        ],
      },
      'Invalid `signature` in `thinking` block',
    ],
  ])('refuses %j', (body, message) => {
    const error = checkAnthropicRequest(body)
    expect(error?.status).toBe(400)
    expect(JSON.stringify(error?.body)).toContain(message)
    expect(error?.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } })
  })

  it('accepts signatures from an answer a test scripted, as the upstream’s own', () => {
    const request = (signature: string) => ({
      ...base,
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Hmm.', signature },
            { type: 'text', text: 'x' },
          ],
        },
        { role: 'user', content: 'Again' },
      ],
    })
    expect(checkAnthropicRequest(request('scripted-sig'))?.status).toBe(400)
    recordScriptedThinking({
      frames: [
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm."}}\n\n',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"scripted-sig"}}\n\n',
      ],
    })
    expect(checkAnthropicRequest(request('scripted-sig'))).toBeUndefined()
  })

  it('accepts the thinking it signed, back in a tool turn', () => {
    const tools = [
      { name: 'f', input_schema: { type: 'object', properties: { q: { type: 'string' } } } },
    ]
    const request = {
      ...base,
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      tools,
    }
    const answer = anthropicModelAnswer(request) as { json: any }
    expect(answer.json.content.map((block: any) => block.type)).toEqual(['thinking', 'tool_use'])
    const next = {
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: answer.json.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: answer.json.content[1].id, content: 'ok' }],
        },
      ],
    }
    expect(checkAnthropicRequest(next)).toBeUndefined()
    expect((anthropicModelAnswer(next) as { json: any }).json.stop_reason).toBe('end_turn')
  })
})

describe('the Gemini fake', () => {
  const body = (generationConfig: object) => ({
    contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    generationConfig,
  })
  it.each([
    [
      'gemini-2.5-flash',
      body({ thinkingConfig: { thinkingBudget: 31999 } }),
      'between 0 and 24576',
    ],
    [
      'gemini-2.5-pro',
      body({ thinkingConfig: { thinkingBudget: 0 } }),
      'only works in thinking mode',
    ],
    ['gemini-2.5-pro', body({ thinkingConfig: { thinkingBudget: 64 } }), 'between 128 and 32768'],
    [
      'gemini-2.5-flash-lite',
      body({ thinkingConfig: { thinkingBudget: 100 } }),
      'between 0 and 24576',
    ],
    [
      'gemini-3-pro-preview',
      body({ thinkingConfig: { thinkingLevel: 'medium' } }),
      'not supported',
    ],
    [
      'gemini-3-flash-preview',
      body({ thinkingConfig: { thinkingLevel: 'low', thinkingBudget: 10 } }),
      'only set one',
    ],
    ['gemini-2.0-flash', body({ thinkingConfig: { thinkingBudget: 1024 } }), 'not supported'],
    ['gemini-2.5-flash', body({ maxOutputTokens: 100000 }), 'maxOutputTokens value of 100000'],
    [
      'gemini-2.5-flash',
      body({ responseJsonSchema: { type: 'object' } }),
      'must be application/json',
    ],
    [
      'gemini-3-flash-preview',
      {
        contents: [
          { role: 'user', parts: [{ text: 'Hi' }] },
          { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
        ],
      },
      'missing a thought_signature',
    ],
    [
      'gemini-2.5-flash',
      {
        contents: [
          { role: 'user', parts: [{ text: 'Hi' }] },
          {
            role: 'model',
            parts: [
              { functionCall: { name: 'f', args: {} } },
              { functionCall: { name: 'f', args: {} } },
            ],
          },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
        ],
      },
      'number of function response parts',
    ],
  ])('refuses %s %j', (model, request, message) => {
    const error = checkGeminiRequest(model, request)
    expect(error?.status).toBe(400)
    expect(JSON.stringify(error?.body)).toContain(message)
    expect(error?.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } })
  })

  it('signs Gemini 3 function calls and accepts its signature or the skip value back', () => {
    const tools = [
      {
        functionDeclarations: [
          { name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } },
        ],
      },
    ]
    const first = geminiModelAnswer(
      'gemini-3-flash-preview',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], tools },
      false,
    ) as { json: any }
    const part = first.json.candidates[0].content.parts[0]
    expect(part.functionCall).toEqual({ name: 'f', args: { a: 'sample' } })
    expect(part.thoughtSignature).toEqual(expect.any(String))
    const next = (signature: string) => ({
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ ...part, thoughtSignature: signature }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { result: 'ok' } } }] },
      ],
    })
    expect(
      checkGeminiRequest('gemini-3-flash-preview', next(part.thoughtSignature)),
    ).toBeUndefined()
    expect(
      checkGeminiRequest('gemini-3-flash-preview', next('skip_thought_signature_validator')),
    ).toBeUndefined()
    expect(
      JSON.stringify(checkGeminiRequest('gemini-3-flash-preview', next('Zm9yZ2Vk'))?.body),
    ).toContain('Corrupted')
  })
})

describe('sampleOf', () => {
  it('gives a value of every schema shape SDKs send', () => {
    expect(
      sampleOf({
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          kind: { enum: ['a', 'b'] },
          maybe: { anyOf: [{ type: 'null' }, { type: 'number' }] },
          nested: { $ref: '#/$defs/Inner' },
          upper: { type: 'OBJECT', properties: { ok: { type: 'BOOLEAN' } } },
        },
        $defs: { Inner: { type: 'object', properties: { x: { const: 1 } } } },
      }),
    ).toEqual({
      name: 'sample',
      age: 42,
      tags: ['sample'],
      kind: 'a',
      maybe: 4.5,
      nested: { x: 1 },
      upper: { ok: true },
    })
  })
})
