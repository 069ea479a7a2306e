import { describe, expect, it } from 'vitest'
import type { ChatRequest, Message } from '../../../src/canonical/types'
import { resolveModelProfile } from '../../../src/models/match-profile'
import type { ModelTarget } from '../../../src/models/model-target'
import type { ModelProfileOverrides } from '../../../src/models/profile'
import { encodeAnthropicRequest } from '../../../src/protocols/anthropic/request-encode'

function fit(model: string, request: Partial<ChatRequest>, overrides?: ModelProfileOverrides) {
  const target: ModelTarget = { profile: resolveModelProfile(model, overrides), adjustments: [] }
  const body = encodeAnthropicRequest(
    {
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stream: false,
      ...request,
    },
    { defaultMaxTokens: target.profile.maxOutputTokens ?? 4096 },
    target,
  ) as Record<string, any>
  return { body, adjustments: target.adjustments }
}

const toolLoop = (signed: boolean): Message[] => [
  { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
  {
    role: 'assistant',
    content: [
      ...(signed
        ? [
            {
              type: 'reasoning' as const,
              text: 't',
              signature: { protocol: 'anthropic' as const, value: 'sig' },
            },
          ]
        : [{ type: 'reasoning' as const, text: 'unsigned' }]),
      { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{}' },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'toolu_1',
        toolName: 'get_weather',
        content: [{ type: 'text', text: 'sunny' }],
      },
    ],
  },
]

describe('max_tokens (GEN-01)', () => {
  it('defaults to the model’s own maximum, not a flat 4096', () => {
    expect(fit('claude-haiku-4-5', {}).body['max_tokens']).toBe(64_000)
    expect(fit('claude-opus-4-7', {}).body['max_tokens']).toBe(128_000)
    expect(fit('some-claude-proxy-model', {}).body['max_tokens']).toBe(4096)
  })

  it('is capped at the model’s maximum', () => {
    const { body, adjustments } = fit('claude-3-5-haiku-20241022', { maxOutputTokens: 32_000 })
    expect(body['max_tokens']).toBe(8192)
    expect(adjustments[0]).toMatchObject({
      field: 'max_tokens',
      change: 'clamped',
      from: 32_000,
      to: 8192,
    })
  })
})

describe('thinking (RSN-01)', () => {
  it('is a budget above the client’s limit for budget models, within the model’s maximum', () => {
    expect(
      fit('claude-haiku-4-5', { maxOutputTokens: 1000, reasoning: { effort: 'high' } }).body,
    ).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 4096 },
      max_tokens: 5096,
    })
    // Claude Code's shape to Opus 4.1 (32,000 at most): the budget stays below max_tokens.
    expect(
      fit('claude-opus-4-1', {
        maxOutputTokens: 32_000,
        reasoning: { enabled: true, budgetTokens: 31_999 },
      }).body,
    ).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 31_999 },
      max_tokens: 32_000,
    })
  })

  it('raises a budget below 1024, and notes it', () => {
    const { body, adjustments } = fit('claude-haiku-4-5', {
      reasoning: { enabled: true, budgetTokens: 500 },
    })
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 1024 })
    expect(adjustments[0]).toMatchObject({
      field: 'thinking.budget_tokens',
      change: 'clamped',
      from: 500,
      to: 1024,
    })
  })

  it('is dropped when the model’s maximum leaves no room for a budget', () => {
    const { body, adjustments } = fit(
      'claude-haiku-4-5',
      { reasoning: { effort: 'high' } },
      { maxOutputTokens: 1000 },
    )
    expect(body).not.toHaveProperty('thinking')
    expect(adjustments[0]).toMatchObject({ field: 'thinking', change: 'dropped' })
  })

  it.each([
    ['claude-opus-4-7', { enabled: true, budgetTokens: 31_999 }, { type: 'adaptive' }, 'high'],
    ['claude-opus-4-7', { effort: 'minimal' }, { type: 'adaptive' }, 'low'],
    ['claude-sonnet-4-6', { effort: 'xhigh' }, { type: 'adaptive' }, 'max'],
    ['claude-opus-4-7', { enabled: true }, { type: 'adaptive' }, undefined],
    ['claude-opus-4-7', { effort: 'none' }, { type: 'disabled' }, undefined],
    ['claude-opus-5-5', { effort: 'none' }, { type: 'adaptive' }, 'low'],
  ] as const)('to %s, %j is %j with effort %s', (model, reasoning, thinking, effort) => {
    const { body } = fit(model, { reasoning })
    expect(body['thinking']).toEqual(thinking)
    expect(body['output_config']?.effort).toBe(effort)
  })

  it('is not asked of models without thinking', () => {
    const { body, adjustments } = fit('claude-3-5-haiku-20241022', {
      reasoning: { effort: 'high' },
    })
    expect(body).not.toHaveProperty('thinking')
    expect(adjustments).toEqual([
      { field: 'thinking', change: 'dropped', from: 'high', reason: 'claude-3-5 does not think' },
    ])
  })
})

describe('a tool turn without signed thinking (TOOL-H-10)', () => {
  it('goes with thinking off, Anthropic’s documented remedy, and says why', () => {
    const { body, adjustments } = fit('claude-haiku-4-5', {
      messages: toolLoop(false),
      reasoning: { effort: 'high' },
    })
    expect(body['thinking']).toEqual({ type: 'disabled' })
    expect(body['messages'][1].content.map((block: any) => block.type)).toEqual(['tool_use'])
    expect(adjustments).toContainEqual(
      expect.objectContaining({
        field: 'thinking',
        change: 'disabled',
        reason: expect.stringContaining('without the signed thinking'),
      }),
    )
  })

  it('keeps thinking when the turn starts with Anthropic’s signed thinking', () => {
    const { body } = fit('claude-haiku-4-5', {
      messages: toolLoop(true),
      reasoning: { effort: 'high' },
    })
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 4096 })
    expect(body['messages'][1].content[0]).toEqual({
      type: 'thinking',
      thinking: 't',
      signature: 'sig',
    })
  })

  it('turns off thinking a model has on by default, at an effort it allows that at', () => {
    const { body } = fit('claude-opus-5', {
      messages: toolLoop(false),
      reasoning: { effort: 'max' },
    })
    expect(body['thinking']).toEqual({ type: 'disabled' })
    expect(body['output_config']).toEqual({ effort: 'high' })
  })

  it('says so when the model cannot turn thinking off', () => {
    const { body, adjustments } = fit('claude-opus-5-5', { messages: toolLoop(false) })
    expect(body).not.toHaveProperty('thinking')
    expect(adjustments).toContainEqual(
      expect.objectContaining({
        field: 'thinking',
        change: 'set',
        reason: expect.stringContaining('cannot turn thinking off'),
      }),
    )
  })
})

describe('sampling (GEN-02)', () => {
  it('is dropped while thinking is on', () => {
    const { body } = fit('claude-haiku-4-5', {
      temperature: 0.5,
      topK: 5,
      reasoning: { effort: 'low' },
    })
    expect(body).not.toHaveProperty('temperature')
    expect(body).not.toHaveProperty('top_k')
  })

  it('is dropped for models that refuse it', () => {
    expect(fit('claude-opus-4-7', { temperature: 0.5 }).body).not.toHaveProperty('temperature')
  })

  it('keeps temperature, not top_p, where the two exclude each other', () => {
    const { body, adjustments } = fit('claude-sonnet-4-5', { temperature: 0.5, topP: 0.9 })
    expect(body['temperature']).toBe(0.5)
    expect(body).not.toHaveProperty('top_p')
    expect(adjustments[0]).toMatchObject({ field: 'top_p', change: 'dropped' })
  })
})

describe('tool choice', () => {
  const tools = [{ name: 'f', inputSchema: { type: 'object' } }]
  it('turns thinking off when it forces a tool', () => {
    const { body } = fit('claude-haiku-4-5', {
      tools,
      toolChoice: { type: 'required' },
      reasoning: { effort: 'high' },
    })
    expect(body['tool_choice']).toEqual({ type: 'any' })
    expect(body['thinking']).toEqual({ type: 'disabled' })
  })

  it('is auto for a model that refuses forced tool use', () => {
    const { body, adjustments } = fit('claude-opus-5-5', {
      tools,
      toolChoice: { type: 'tool', name: 'f' },
    })
    expect(body['tool_choice']).toEqual({ type: 'auto' })
    expect(adjustments[0]).toMatchObject({ field: 'tool_choice', change: 'mapped' })
  })
})

describe('structured output (JSON-01, JSON-02)', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      n: { type: 'integer', minimum: 0 },
      tags: {
        type: 'array',
        items: { type: 'object', properties: { t: { type: 'string', maxLength: 9 } } },
      },
    },
    required: ['n'],
  }

  it('is output_config.format with a schema Anthropic accepts, on models that have it', () => {
    expect(
      fit('claude-sonnet-4-5', { responseFormat: { type: 'json', schema } }).body['output_config'],
    ).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: {
            n: { type: 'integer' },
            tags: {
              type: 'array',
              items: {
                type: 'object',
                properties: { t: { type: 'string' } },
                additionalProperties: false,
              },
            },
          },
          required: ['n'],
          additionalProperties: false,
        },
      },
    })
  })

  it('is a forced answer tool on older models', () => {
    const { body } = fit('claude-3-5-haiku-20241022', {
      responseFormat: { type: 'json', schema, name: 'answer' },
    })
    expect(body['tools']).toEqual([
      expect.objectContaining({ name: 'json_answer', input_schema: schema }),
    ])
    expect(body['tool_choice']).toEqual({
      type: 'tool',
      name: 'json_answer',
      disable_parallel_tool_use: true,
    })
  })

  it('is an instruction when there is no schema', () => {
    const { body } = fit('claude-sonnet-4-5', { responseFormat: { type: 'json' } })
    expect(body['system']).toEqual([
      { type: 'text', text: expect.stringContaining('single JSON object') },
    ])
    expect(body).not.toHaveProperty('output_config')
  })
})
