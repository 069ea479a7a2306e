import { describe, expect, it } from 'vitest'
import type { ChatRequest } from '../../../src/canonical/types'
import { resolveModelProfile } from '../../../src/models/match-profile'
import type { ModelTarget } from '../../../src/models/model-target'
import type { ModelProfileOverrides } from '../../../src/models/profile'
import { encodeOpenAIRequest } from '../../../src/protocols/openai/request-encode'

/** Encodes a request for a model, returning the body and what was adjusted. */
function fit(model: string, request: Partial<ChatRequest>, overrides?: ModelProfileOverrides) {
  const target: ModelTarget = { profile: resolveModelProfile(model, overrides), adjustments: [] }
  const body = encodeOpenAIRequest(
    {
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stream: false,
      ...request,
    },
    target,
  )
  return { body, adjustments: target.adjustments }
}

describe('output limit (GEN-01)', () => {
  it('goes in max_completion_tokens for reasoning models, max_tokens otherwise', () => {
    expect(fit('o3', { maxOutputTokens: 1000 }).body).toMatchObject({ max_completion_tokens: 1000 })
    expect(fit('o3', { maxOutputTokens: 1000 }).body).not.toHaveProperty('max_tokens')
    expect(fit('gpt-4.1', { maxOutputTokens: 1000 }).body).toMatchObject({ max_tokens: 1000 })
  })

  it('is capped at the model’s maximum, and said so', () => {
    const { body, adjustments } = fit('gpt-4o', { maxOutputTokens: 32_000 })
    expect(body['max_tokens']).toBe(16_384)
    expect(adjustments).toEqual([
      {
        field: 'max_tokens',
        change: 'clamped',
        from: 32_000,
        to: 16_384,
        reason: 'gpt-4o writes at most 16384 output tokens',
      },
    ])
  })

  it('is left out when the client set none: the model’s own maximum applies', () => {
    expect(fit('gpt-5', {}).body).not.toHaveProperty('max_completion_tokens')
  })
})

describe('reasoning (RSN-01, RSN-02)', () => {
  it.each([
    ['gpt-4.1', { effort: 'high' }, undefined],
    ['o3', { effort: 'minimal' }, 'low'],
    ['o3', { effort: 'xhigh' }, 'high'],
    ['gpt-5', { effort: 'none' }, 'minimal'],
    ['gpt-5', { effort: 'max' }, 'high'],
    ['gpt-5.1', { effort: 'none' }, 'none'],
    ['gpt-5.1', { effort: 'minimal' }, 'low'],
    ['gpt-5.2', { effort: 'xhigh' }, 'xhigh'],
    ['gpt-5', { enabled: true, budgetTokens: 31_999 }, 'high'],
    ['o3', { enabled: true, budgetTokens: 1024 }, 'low'],
    ['o3', { enabled: true }, 'medium'],
    ['o1-mini', { effort: 'high' }, undefined],
    ['my-local-model', { effort: 'high' }, 'high'],
    ['my-local-model', { enabled: true, budgetTokens: 5000 }, 'medium'],
  ] as const)('%s, asked %j, gets reasoning_effort %s', (model, reasoning, effort) => {
    expect(fit(model, { reasoning }).body['reasoning_effort']).toBe(effort)
  })

  it('notes a dropped or mapped effort', () => {
    expect(fit('gpt-4.1', { reasoning: { effort: 'high' } }).adjustments).toEqual([
      {
        field: 'reasoning_effort',
        change: 'dropped',
        from: 'high',
        reason: 'gpt-4.1 does not reason',
      },
    ])
    expect(fit('o3', { reasoning: { effort: 'minimal' } }).adjustments).toEqual([
      {
        field: 'reasoning_effort',
        change: 'mapped',
        from: 'minimal',
        to: 'low',
        reason: 'o3 takes reasoning_effort low, medium, high',
      },
    ])
  })

  it('switches thinking on and off for toggle models', () => {
    expect(
      fit('deepseek-chat', { reasoning: { enabled: true, budgetTokens: 4000 } }).body['thinking'],
    ).toEqual({ type: 'enabled' })
    expect(fit('deepseek-chat', { reasoning: { effort: 'none' } }).body['thinking']).toEqual({
      type: 'disabled',
    })
    expect(fit('qwen3-235b-a22b', { reasoning: { effort: 'high' } }).body['enable_thinking']).toBe(
      true,
    )
    expect(fit('deepseek-chat', {}).body).not.toHaveProperty('thinking')
  })

  it('echoes earlier reasoning as reasoning_content to models that need it (TOOL-H-11)', () => {
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Let me look.' },
          { type: 'tool-call', id: 'c1', name: 'f', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'f',
            content: [{ type: 'text', text: 'r' }],
          },
        ],
      },
    ]
    expect(fit('deepseek-reasoner', { messages }).body['messages']).toContainEqual(
      expect.objectContaining({ role: 'assistant', reasoning_content: 'Let me look.' }),
    )
    expect(JSON.stringify(fit('gpt-4o', { messages }).body)).not.toContain('reasoning_content')
  })
})

describe('sampling (GEN-02, GEN-03)', () => {
  it('is dropped for models that refuse it, and noted', () => {
    const { body, adjustments } = fit('o3', { temperature: 0.2, topP: 0.9 })
    expect(body).not.toHaveProperty('temperature')
    expect(body).not.toHaveProperty('top_p')
    expect(adjustments.map((item) => [item.field, item.change])).toEqual([
      ['temperature', 'dropped'],
      ['top_p', 'dropped'],
    ])
  })

  it('is kept on GPT-5.1 while it does not reason, dropped while it does', () => {
    expect(fit('gpt-5.1', { temperature: 0.2 }).body['temperature']).toBe(0.2)
    expect(
      fit('gpt-5.1', { temperature: 0.2, reasoning: { effort: 'none' } }).body['temperature'],
    ).toBe(0.2)
    expect(
      fit('gpt-5.1', { temperature: 0.2, reasoning: { effort: 'high' } }).body,
    ).not.toHaveProperty('temperature')
  })

  it('keeps temperature within the model’s range', () => {
    expect(fit('kimi-k2-0905-preview', { temperature: 1.5 }).body['temperature']).toBe(1)
    expect(fit('gpt-4o', { temperature: 1.5 }).body['temperature']).toBe(1.5)
  })
})

describe('tool choice', () => {
  it('becomes auto for a model that refuses a forced choice', () => {
    const request: Partial<ChatRequest> = {
      tools: [{ name: 'f', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'required' },
    }
    expect(fit('gpt-4o', request).body['tool_choice']).toBe('required')
    expect(fit('gpt-4o', request, { forcedToolChoice: false }).body['tool_choice']).toBe('auto')
  })
})

describe('structured output (JSON-02, JSON-04)', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } }
  it('is json_schema where the model constrains output, with an OpenAI-safe name', () => {
    expect(
      fit('gpt-4o', { responseFormat: { type: 'json', schema, name: 'my answer!' } }).body[
        'response_format'
      ],
    ).toEqual({
      type: 'json_schema',
      json_schema: { name: 'my_answer_', schema },
    })
  })

  it('is json_object with the schema as an instruction for JSON-mode models', () => {
    const { body, adjustments } = fit('deepseek-chat', { responseFormat: { type: 'json', schema } })
    expect(body['response_format']).toEqual({ type: 'json_object' })
    expect((body['messages'] as any[])[0]).toEqual({
      role: 'system',
      content: expect.stringContaining(JSON.stringify(schema)),
    })
    expect(adjustments[0]).toMatchObject({
      field: 'response_format',
      change: 'mapped',
      to: 'json_object',
    })
  })

  it('is an instruction alone for models without JSON mode', () => {
    const { body } = fit('gpt-4', { responseFormat: { type: 'json', schema } })
    expect(body).not.toHaveProperty('response_format')
    expect((body['messages'] as any[])[0].content).toContain('JSON Schema')
  })

  it('adds the word JSON to a JSON-mode request whose messages lack it', () => {
    expect(
      (fit('gpt-4o', { responseFormat: { type: 'json' } }).body['messages'] as any[])[0],
    ).toMatchObject({ role: 'system' })
    const mentioned = fit('gpt-4o', {
      responseFormat: { type: 'json' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply in JSON' }] }],
    })
    expect(mentioned.body['messages']).toHaveLength(1)
  })
})

describe('input the model does not take', () => {
  it('is refused with 400 before any upstream call', () => {
    const image: Partial<ChatRequest> = {
      messages: [
        {
          role: 'user',
          content: [{ type: 'image', source: { kind: 'url', url: 'https://x.test/a.png' } }],
        },
      ],
    }
    expect(() => fit('deepseek-chat', image)).toThrow(
      expect.objectContaining({
        status: 400,
        message: expect.stringContaining('does not take image input'),
      }),
    )
    expect(() => fit('gpt-4o', image)).not.toThrow()
  })
})
