import { describe, expect, it } from 'vitest'
import { checkResponsesRequest, responsesModelAnswer } from './responses-fake'

const weather = {
  type: 'function',
  name: 'get_weather',
  strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
}

describe('the Responses fake', () => {
  it('refuses encrypted reasoning it did not issue, as OpenAI does', () => {
    const refused = checkResponsesRequest({
      model: 'gpt-5.1',
      input: [
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gwr1.eyJ0IjoiIn0' },
      ],
    })
    expect(refused).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_encrypted_content' } },
    })
  })

  it('finds reasoning by id only when it was stored', () => {
    const answer = responsesModelAnswer({
      model: 'gpt-5.1',
      input: 'q',
      reasoning: { effort: 'low' },
    })
    const reasoning = ('json' in answer ? (answer.json as any).output : [])[0]
    expect(
      checkResponsesRequest({
        model: 'gpt-5.1',
        input: [{ type: 'reasoning', id: reasoning.id, summary: [] }],
      }),
    ).toBeUndefined()
    const unstored = responsesModelAnswer({
      model: 'gpt-5.1',
      input: 'q',
      store: false,
      reasoning: { effort: 'low' },
    })
    const lost = ('json' in unstored ? (unstored.json as any).output : [])[0]
    expect(
      checkResponsesRequest({
        model: 'gpt-5.1',
        input: [{ type: 'reasoning', id: lost.id, summary: [] }],
      }),
    ).toMatchObject({
      body: {
        error: {
          message: expect.stringContaining('Items are not persisted when `store` is set to false'),
        },
      },
    })
  })

  it('takes back the encrypted reasoning it issued', () => {
    const answer = responsesModelAnswer({
      model: 'gpt-5.1',
      input: 'q',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low' },
    })
    const reasoning = ('json' in answer ? (answer.json as any).output : [])[0]
    expect(reasoning.encrypted_content).toMatch(/^gAAAA/)
    expect(checkResponsesRequest({ model: 'gpt-5.1', input: [reasoning] })).toBeUndefined()
  })

  it('refuses strict function tools whose schema is open, effort on models that do not reason, tiny limits and unpaired calls', () => {
    expect(
      checkResponsesRequest({
        model: 'gpt-4.1',
        input: 'q',
        tools: [{ ...weather, strict: undefined }],
      }),
    ).toMatchObject({
      body: { error: { code: 'invalid_function_parameters' } },
    })
    expect(
      checkResponsesRequest({ model: 'gpt-4.1', input: 'q', reasoning: { effort: 'low' } }),
    ).toMatchObject({
      body: { error: { param: 'reasoning.effort' } },
    })
    expect(
      checkResponsesRequest({ model: 'gpt-4.1', input: 'q', max_output_tokens: 8 }),
    ).toMatchObject({
      body: { error: { code: 'integer_below_min_value' } },
    })
    expect(
      checkResponsesRequest({
        model: 'gpt-4.1',
        input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }],
      }),
    ).toMatchObject({
      body: { error: { message: 'No tool call found for function call output with call_id c.' } },
    })
    expect(
      checkResponsesRequest({
        model: 'gpt-4.1',
        input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }],
      }),
    ).toMatchObject({ body: { error: { message: 'No tool output found for function call c.' } } })
  })

  it('refuses sampling on reasoning models and text formats OpenAI would refuse', () => {
    const open = { type: 'object', properties: { a: { type: 'string' } } }
    const closed = { ...open, required: ['a'], additionalProperties: false }
    const format = (value: object) => ({ model: 'gpt-4.1', input: 'q', text: { format: value } })
    for (const [body, expected] of [
      [{ model: 'o3', input: 'q', temperature: 0.2 }, { param: 'temperature' }],
      [{ model: 'gpt-5', input: 'q', top_p: 0.5 }, { param: 'top_p' }],
      [
        { model: 'gpt-5.1', input: 'q', temperature: 0.2, reasoning: { effort: 'low' } },
        { code: 'unsupported_parameter' },
      ],
      [format({ type: 'json_schema', name: 'a b', schema: closed }), { code: 'invalid_value' }],
      [format({ type: 'json_schema', name: 'a' }), { code: 'missing_required_parameter' }],
      [
        format({ type: 'json_schema', name: 'a', schema: open, strict: true }),
        { code: 'invalid_json_schema' },
      ],
      [format({ type: 'json_object' }), { param: 'input' }],
    ] as const)
      expect(checkResponsesRequest(body), JSON.stringify(body)).toMatchObject({
        status: 400,
        body: { error: expected },
      })
    for (const body of [
      { model: 'gpt-5.1', input: 'q', temperature: 0.2, reasoning: { effort: 'none' } },
      { model: 'gpt-4.1', input: 'q', temperature: 0.2 },
      format({ type: 'json_schema', name: 'a', schema: open }),
      format({ type: 'json_schema', name: 'a', schema: closed, strict: true }),
      { ...format({ type: 'json_object' }), instructions: 'Answer in JSON.' },
    ])
      expect(checkResponsesRequest(body), JSON.stringify(body)).toBeUndefined()
  })

  it('answers a tool call, then text after the tool output, with the lifecycle in a stream', () => {
    const first = responsesModelAnswer({ model: 'gpt-4.1', input: 'q', tools: [weather] })
    expect('json' in first && (first.json as any).output[0]).toMatchObject({
      type: 'function_call',
      name: 'get_weather',
    })
    const second = responsesModelAnswer({
      model: 'gpt-4.1',
      stream: true,
      tools: [weather],
      input: [
        { type: 'function_call', call_id: 'c', name: 'get_weather', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'sunny' },
      ],
    })
    const frames = 'frames' in second ? second.frames : []
    expect(frames[0]).toMatch(/^event: response\.created\n/)
    expect(frames.at(-1)).toMatch(/^event: response\.completed\n/)
    expect(frames.join('')).toContain('after the tool output')
  })
})
