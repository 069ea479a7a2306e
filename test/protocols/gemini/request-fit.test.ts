import { describe, expect, it } from 'vitest'
import type { ChatRequest } from '../../../src/canonical/types'
import { resolveModelProfile } from '../../../src/models/match-profile'
import type { ModelTarget } from '../../../src/models/model-target'
import { encodeGeminiRequest } from '../../../src/protocols/gemini/request-encode'

function fit(model: string, request: Partial<ChatRequest>) {
  const target: ModelTarget = { profile: resolveModelProfile(model), adjustments: [] }
  const body = encodeGeminiRequest(
    {
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stream: false,
      ...request,
    },
    target,
  ) as Record<string, any>
  return { config: body['generationConfig'] ?? {}, adjustments: target.adjustments }
}

describe('thinking budgets (RSN-03)', () => {
  it.each([
    [
      'gemini-2.5-flash',
      { enabled: true, budgetTokens: 31_999 },
      { thinkingBudget: 24_576, includeThoughts: true },
    ],
    ['gemini-2.5-flash', { effort: 'none' }, { thinkingBudget: 0 }],
    ['gemini-2.5-flash', { enabled: true }, { thinkingBudget: -1, includeThoughts: true }],
    ['gemini-2.5-pro', { effort: 'none' }, { thinkingBudget: 128 }],
    [
      'gemini-2.5-pro',
      { enabled: true, budgetTokens: 50 },
      { thinkingBudget: 128, includeThoughts: true },
    ],
    [
      'gemini-2.5-pro',
      { enabled: true, budgetTokens: 31_999 },
      { thinkingBudget: 31_999, includeThoughts: true },
    ],
    [
      'gemini-2.5-flash-lite',
      { enabled: true, budgetTokens: 100 },
      { thinkingBudget: 512, includeThoughts: true },
    ],
    [
      'gemini-2.5-flash-lite',
      { effort: 'high' },
      { thinkingBudget: 24_576, includeThoughts: true },
    ],
  ] as const)('%s, asked %j, gets %j', (model, reasoning, thinkingConfig) => {
    expect(fit(model, { reasoning }).config.thinkingConfig).toEqual(thinkingConfig)
  })

  it('notes a clamped budget', () => {
    expect(
      fit('gemini-2.5-flash', { reasoning: { enabled: true, budgetTokens: 31_999 } }).adjustments,
    ).toEqual([
      {
        field: 'generationConfig.thinkingConfig.thinkingBudget',
        change: 'clamped',
        from: 31_999,
        to: 24_576,
        reason: 'gemini-2.5-flash takes thinking budgets of 1–24576',
      },
    ])
  })
})

describe('thinking levels (Gemini 3)', () => {
  it.each([
    [
      'gemini-3-pro-preview',
      { effort: 'medium' },
      { thinkingLevel: 'high', includeThoughts: true },
    ],
    ['gemini-3-pro-preview', { effort: 'none' }, { thinkingLevel: 'low' }],
    [
      'gemini-3-pro-preview',
      { enabled: true, budgetTokens: 31_999 },
      { thinkingLevel: 'high', includeThoughts: true },
    ],
    [
      'gemini-3-flash-preview',
      { effort: 'minimal' },
      { thinkingLevel: 'minimal', includeThoughts: true },
    ],
    ['gemini-3-flash-preview', { effort: 'none' }, { thinkingLevel: 'minimal' }],
    [
      'gemini-3.1-pro-preview',
      { enabled: true, budgetTokens: 4000 },
      { thinkingLevel: 'medium', includeThoughts: true },
    ],
    ['gemini-3-flash-preview', { enabled: true }, { includeThoughts: true }],
  ] as const)('%s, asked %j, gets %j', (model, reasoning, thinkingConfig) => {
    expect(fit(model, { reasoning }).config.thinkingConfig).toEqual(thinkingConfig)
  })
})

describe('models without thinking, and limits', () => {
  it('sends Gemini 2.0 no thinking configuration, and says so', () => {
    const { config, adjustments } = fit('gemini-2.0-flash', { reasoning: { effort: 'high' } })
    expect(config).not.toHaveProperty('thinkingConfig')
    expect(adjustments[0]).toMatchObject({ change: 'dropped' })
  })

  it('caps maxOutputTokens at the model’s maximum', () => {
    expect(fit('gemini-2.5-flash', { maxOutputTokens: 100_000 }).config.maxOutputTokens).toBe(
      65_536,
    )
    expect(fit('gemini-2.0-flash', { maxOutputTokens: 100_000 }).config.maxOutputTokens).toBe(8_192)
  })

  it('drops sampling a model ignores', () => {
    const { config } = fit('gemini-3.5-flash-lite', { temperature: 0.2, topK: 3 })
    expect(config).not.toHaveProperty('temperature')
    expect(config).not.toHaveProperty('topK')
  })
})
