import { describe, expect, it } from 'vitest'
import { createGateway, GatewayConfigError } from '../../src/index'
import {
  matchModelProfile,
  normalizeModelName,
  resolveModelProfile,
} from '../../src/models/match-profile'
import { unknownModelProfile } from '../../src/models/profile'

describe('normalizeModelName', () => {
  it.each([
    ['openai/gpt-4o', 'gpt-4o'],
    ['models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['meta-llama/Llama-3.3-70B-Instruct', 'llama-3.3-70b-instruct'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5-20250929'],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', 'claude-3-5-haiku-20241022'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['llama3.1:8b', 'llama3.1:8b'],
  ])('reads %s as %s', (name, normalized) => {
    expect(normalizeModelName(name)).toBe(normalized)
  })
})

describe('matchModelProfile', () => {
  it.each([
    // Dated snapshots and aliases land on their family.
    ['gpt-4o-2024-08-06', 'gpt-4o', 16_384],
    ['chatgpt-4o-latest', 'gpt-4o', 16_384],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini', 16_384],
    ['gpt-4.1-mini-2025-04-14', 'gpt-4.1', 32_768],
    ['o3-mini-2025-01-31', 'o3-mini', 100_000],
    ['o4-mini', 'o3', 100_000],
    ['gpt-5-2025-08-07', 'gpt-5', 128_000],
    ['gpt-5-nano', 'gpt-5', 128_000],
    ['gpt-5-chat-latest', 'gpt-5-chat', 16_384],
    ['gpt-5.1-2025-11-13', 'gpt-5.1', 128_000],
    ['gpt-5.1-codex', 'gpt-5-codex', 128_000],
    ['gpt-5.1-codex-max', 'gpt-5.1-codex-max', 128_000],
    ['gpt-5.2', 'gpt-5.2', 128_000],
    ['claude-3-5-sonnet-latest', 'claude-3-5', 8_192],
    ['claude-3-7-sonnet-20250219', 'claude-3-7-sonnet', 64_000],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4', 64_000],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1', 32_000],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5', 64_000],
    ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5', 64_000],
    ['claude-haiku-4-5', 'claude-haiku-4-5', 64_000],
    ['claude-opus-4-6', 'claude-opus-4-6', 128_000],
    ['claude-opus-4-7', 'claude-opus-4-7', 128_000],
    ['claude-opus-5-5', 'claude-5-5', 128_000],
    ['claude-fable-5-1', 'claude-fable-5-1', 128_000],
    ['gemini-2.0-flash-001', 'gemini-2.0-flash', 8_192],
    ['gemini-2.5-pro', 'gemini-2.5-pro', 65_536],
    ['gemini-2.5-flash-preview-09-2025', 'gemini-2.5-flash', 65_536],
    ['gemini-2.5-flash-lite', 'gemini-2.5-flash-lite', 65_536],
    ['gemini-3-pro-preview', 'gemini-3', 65_536],
    ['gemini-3.1-pro-preview', 'gemini-3.1-pro', 65_536],
    ['gemini-3-flash-preview', 'gemini-3-flash', 65_536],
    ['deepseek-chat', 'deepseek-chat', 8_192],
    ['deepseek-reasoner', 'deepseek-reasoner', 65_536],
    ['qwen3-max', 'qwen3-max', 65_536],
    ['glm-4.6', 'glm', 128_000],
    ['glm-4.7', 'glm-4.7', 128_000],
    ['glm-5.1', 'glm-4.7', 128_000],
    ['deepseek-v4-pro', 'deepseek-v4', 384_000],
    ['deepseek-v4-flash', 'deepseek-v4', 384_000],
    ['kimi-k2-thinking-turbo', 'kimi-k2-thinking', undefined],
    ['kimi-k2.6', 'kimi-k2.5', undefined],
    ['qwen3-235b-a22b-thinking-2507', 'qwen3-thinking', 16_384],
    ['qwen3.6-plus', 'qwen3', 16_384],
    ['MiniMax-M2', 'minimax-m2', undefined],
    ['minimax/MiniMax-M2.5-highspeed', 'minimax-m2', undefined],
    ['meta-llama/Llama-3.3-70B-Instruct', 'llama-3', undefined],
  ])('matches %s to %s (max output %s)', (name, family, maxOutput) => {
    const profile = matchModelProfile(name)
    expect(profile.family).toBe(family)
    expect(profile.maxOutputTokens).toBe(maxOutput)
  })

  it('gives the longest pattern the win, whatever the table order', () => {
    expect(matchModelProfile('gpt-4o-mini').family).toBe('gpt-4o-mini')
    expect(matchModelProfile('claude-sonnet-4-6').reasoning).toEqual({
      kind: 'adaptive',
      efforts: ['low', 'medium', 'high', 'max'],
      canDisable: true,
    })
    expect(matchModelProfile('gemini-2.5-flash-lite-preview').reasoning).toMatchObject({
      min: 512,
    })
  })

  it('knows how each vendor asks for reasoning', () => {
    expect(matchModelProfile('gpt-4.1').reasoning).toEqual({ kind: 'none' })
    expect(matchModelProfile('o3').outputLimitField).toBe('max_completion_tokens')
    expect(matchModelProfile('gpt-5').reasoning).toEqual({
      kind: 'effort',
      efforts: ['minimal', 'low', 'medium', 'high'],
    })
    expect(matchModelProfile('gpt-5.1').sampling).toBe('unless-reasoning')
    expect(matchModelProfile('claude-sonnet-4-5').reasoning).toEqual({
      kind: 'budget',
      min: 1024,
      canDisable: true,
    })
    expect(matchModelProfile('gemini-2.5-pro').reasoning).toEqual({
      kind: 'budget',
      min: 128,
      max: 32_768,
      canDisable: false,
      dynamic: true,
    })
    expect(matchModelProfile('gemini-3-pro-preview').reasoning).toEqual({
      kind: 'level',
      levels: ['low', 'high'],
    })
    expect(matchModelProfile('deepseek-chat').reasoning).toEqual({
      kind: 'toggle',
      field: 'thinking',
    })
  })

  it('knows which models take earlier reasoning back, and in which field (TOOL-H-11)', () => {
    const history = (name: string) => {
      const { reasoningHistory, reasoningField } = matchModelProfile(name)
      return reasoningHistory ? reasoningField : false
    }
    for (const name of [
      'deepseek-chat',
      'deepseek-reasoner',
      'deepseek-v4-pro',
      'kimi-k2-thinking',
      'kimi-k2.5',
      'glm-4.5-air',
      'glm-5',
      'qwen3-max',
      'qwq-32b',
    ])
      expect(history(name), name).toBe('reasoning_content')
    expect(history('MiniMax-M2.7')).toBe('reasoning_details')
    for (const name of [
      'gpt-5',
      'claude-sonnet-4-5',
      'deepseek-r1',
      'kimi-k2-0905',
      'qwen3-coder-plus',
    ])
      expect(history(name), name).toBe(false)
    expect(unknownModelProfile.reasoningHistory).toBe(false)
    expect(matchModelProfile('glm-4.7').reasoning).toEqual({
      kind: 'toggle',
      field: 'thinking',
      clearThinking: false,
    })
    expect(matchModelProfile('MiniMax-M2').reasoning).toEqual({ kind: 'always' })
  })

  it('gives unknown models the lenient profile', () => {
    expect(matchModelProfile('my-finetune-7b')).toBe(unknownModelProfile)
    expect(unknownModelProfile).toMatchObject({
      reasoning: { kind: 'any' },
      sampling: 'all',
      maxOutputTokens: undefined,
      imageInput: true,
    })
  })

  it('has a vendor page for every entry', () => {
    for (const name of [
      'gpt-5',
      'claude-opus-4-7',
      'gemini-2.5-flash',
      'kimi-k2',
      'qwq-32b',
      'deepseek-v4-pro',
      'glm-4.7',
      'MiniMax-M2',
    ])
      expect(matchModelProfile(name).see).toMatch(/^https:\/\//)
  })
})

describe('resolveModelProfile', () => {
  it('lays the operator’s fields over the table, each replacing the built-in value', () => {
    const profile = resolveModelProfile('gpt-4o', {
      maxOutputTokens: 8_000,
      reasoning: { kind: 'effort', efforts: ['low', 'high'] },
    })
    expect(profile).toMatchObject({
      family: 'gpt-4o',
      contextWindow: 128_000,
      maxOutputTokens: 8_000,
      reasoning: { kind: 'effort', efforts: ['low', 'high'] },
    })
  })

  it('lets an operator describe a model the table does not know', () => {
    const profile = resolveModelProfile('acme-thinker-2', {
      contextWindow: 32_768,
      maxOutputTokens: 4_096,
      reasoning: { kind: 'toggle', field: 'enable_thinking' },
      structuredOutput: 'json',
    })
    expect(profile).toMatchObject({
      family: 'unknown',
      contextWindow: 32_768,
      maxOutputTokens: 4_096,
      reasoning: { kind: 'toggle', field: 'enable_thinking' },
      structuredOutput: 'json',
      sampling: 'all',
    })
  })
})

describe('profile overrides in the config', () => {
  const build = (profile: unknown) => () =>
    createGateway({
      groups: [
        {
          id: 'g',
          protocol: 'openai',
          models: [{ name: 'm', upstreamModel: 'acme', profile: profile as never }],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [],
    })

  it('accepts every field', () => {
    expect(
      build({
        contextWindow: 200_000,
        maxOutputTokens: 64_000,
        outputLimitField: 'max_completion_tokens',
        reasoning: { kind: 'budget', min: 1024, max: 32_000, canDisable: true, dynamic: false },
        sampling: 'unless-reasoning',
        temperatureOrTopP: true,
        maxTemperature: 1,
        structuredOutput: 'tool',
        forcedToolChoice: false,
        imageInput: false,
        documentInput: false,
        reasoningHistory: true,
        reasoningField: 'reasoning_details',
      }),
    ).not.toThrow()
    expect(
      build({ reasoning: { kind: 'toggle', field: 'thinking', clearThinking: false } }),
    ).not.toThrow()
  })

  it.each([
    [{ maxOutputTokens: 0 }, 'groups[0].models[0].profile.maxOutputTokens'],
    [{ colour: 'blue' }, 'groups[0].models[0].profile'],
    [{ reasoning: { kind: 'wat' } }, 'groups[0].models[0].profile.reasoning.kind'],
    [
      { reasoning: { kind: 'budget', min: 2048, max: 1024, canDisable: true } },
      'groups[0].models[0].profile.reasoning.min',
    ],
    [
      { reasoning: { kind: 'effort', efforts: ['huge'] } },
      'groups[0].models[0].profile.reasoning.efforts[0]',
    ],
    [{ contextWindow: 1000, maxOutputTokens: 2000 }, 'groups[0].models[0].profile.maxOutputTokens'],
    [{ structuredOutput: 'xml' }, 'groups[0].models[0].profile.structuredOutput'],
    [{ reasoningField: 'thoughts' }, 'groups[0].models[0].profile.reasoningField'],
    [
      { reasoning: { kind: 'toggle', field: 'thinking', clearThinking: 'no' } },
      'groups[0].models[0].profile.reasoning.clearThinking',
    ],
  ])('refuses %j with an error at its path', (profile, path) => {
    let error: unknown
    try {
      build(profile)()
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(GatewayConfigError)
    expect((error as GatewayConfigError).issues.map((issue) => issue.path)).toContain(path)
  })
})
