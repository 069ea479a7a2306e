import { describe, expect, it } from 'vitest'
import { lenientTarget } from '../../../src/models/model-target'
import { encodeResponsesRequest } from '../../../src/protocols/responses/request-encode'

describe('canonical → Responses request (an upstream marked responses: true)', () => {
  it('writes instructions, items, flat non-strict tools and the generation fields', () => {
    expect(
      encodeResponsesRequest({
        model: 'gpt-5',
        stream: true,
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image', source: { kind: 'url', url: 'https://x/a.png' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'not sent back' },
              { type: 'text', text: 'Calling.' },
              { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '' },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'toolu_1',
                toolName: 'f',
                content: [{ type: 'text', text: 'boom' }],
                isError: true,
              },
            ],
          },
          { role: 'system', content: [{ type: 'text', text: 'Later note.' }] },
        ],
        tools: [{ name: 'f', description: 'F', inputSchema: { type: 'object', properties: {} } }],
        toolChoice: { type: 'tool', name: 'f' },
        parallelToolCalls: false,
        maxOutputTokens: 100,
        temperature: 0.5,
        stopSequences: ['END'],
        seed: 3,
        reasoning: { effort: 'max' },
        responseFormat: { type: 'json', schema: { type: 'object' } },
        user: 'u1',
      }),
    ).toEqual({
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look' },
            { type: 'input_image', image_url: 'https://x/a.png', detail: 'auto' },
          ],
        },
        { role: 'assistant', content: 'Calling.' },
        { type: 'function_call', call_id: 'toolu_1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'toolu_1', output: 'Error: boom' },
        { role: 'developer', content: 'Later note.' },
      ],
      tools: [
        {
          type: 'function',
          name: 'f',
          description: 'F',
          parameters: { type: 'object', properties: {} },
          strict: false,
        },
      ],
      parallel_tool_calls: false,
      tool_choice: { type: 'function', name: 'f' },
      max_output_tokens: 100,
      temperature: 0.5,
      user: 'u1',
      reasoning: { effort: 'xhigh', summary: 'auto' },
      text: {
        format: {
          type: 'json_schema',
          name: 'response',
          schema: { type: 'object' },
          strict: false,
        },
      },
      store: false,
      stream: true,
    })
  })
})

describe('the Responses API minimum output limit', () => {
  it('raises max_output_tokens below 16 and notes the change', () => {
    const target = lenientTarget()
    const body = encodeResponsesRequest(
      {
        model: 'gpt-5',
        stream: false,
        maxOutputTokens: 1,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      },
      target,
    )
    expect(body['max_output_tokens']).toBe(16)
    expect(target.adjustments).toEqual([
      {
        field: 'max_output_tokens',
        change: 'clamped',
        from: 1,
        to: 16,
        reason: expect.stringContaining('at least 16'),
      },
    ])
  })
})

describe('JSON answers toward a Responses upstream (RESP-FMT-01, reversed)', () => {
  const ask = (
    responseFormat: NonNullable<Parameters<typeof encodeResponsesRequest>[0]['responseFormat']>,
    text = 'Weather in Paris?',
    structuredOutput: 'schema' | 'json' | 'none' = 'schema',
  ) => {
    const target = lenientTarget()
    target.profile = { ...target.profile, structuredOutput }
    const body = encodeResponsesRequest(
      {
        model: 'gpt-4o',
        stream: false,
        responseFormat,
        messages: [{ role: 'user', content: [{ type: 'text', text }] }],
      },
      target,
    )
    return { body, adjustments: target.adjustments }
  }
  const schema = { type: 'object', properties: { a: { type: 'string' } } }

  it('keeps the schema with an OpenAI-safe name, and strict only when the client asked', () => {
    expect(
      ask({ type: 'json', schema, name: 'weather report', strict: true }).body['text'],
    ).toEqual({ format: { type: 'json_schema', name: 'weather_report', schema, strict: true } })
    expect(ask({ type: 'json', schema, description: 'd' }).body['text']).toEqual({
      format: { type: 'json_schema', name: 'response', description: 'd', schema, strict: false },
    })
  })

  it('adds the JSON instruction to JSON mode when nothing in the request says "JSON"', () => {
    const silent = ask({ type: 'json' }).body
    expect(silent['text']).toEqual({ format: { type: 'json_object' } })
    expect(silent['instructions']).toMatch(/^Respond with a single JSON object/)
    const said = ask({ type: 'json' }, 'Answer in JSON.').body
    expect(said['instructions']).toBeUndefined()
  })

  it('gives a model without schema support JSON mode and the schema as an instruction, noted', () => {
    const { body, adjustments } = ask({ type: 'json', schema }, 'Weather?', 'json')
    expect(body['text']).toEqual({ format: { type: 'json_object' } })
    expect(body['instructions']).toContain(JSON.stringify(schema))
    expect(adjustments).toEqual([
      expect.objectContaining({ field: 'text.format', change: 'mapped', to: 'json_object' }),
    ])
  })
})
