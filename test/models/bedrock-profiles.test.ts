import { describe, expect, it } from 'vitest'
import { matchModelProfile } from '../../src/models/match-profile'
import { createPriceCatalogue } from '../../src/pricing/price-catalogue'
import { usdPerMillion } from '../../src/pricing/price-units'

describe('Bedrock models on the Converse API', () => {
  it.each([
    ['amazon.nova-micro-v1:0', 'nova-micro', { imageInput: false, forcedToolChoice: true }],
    ['us.amazon.nova-pro-v1:0', 'nova-pro', { imageInput: true, documentInput: true }],
    ['us.amazon.nova-premier-v1:0', 'nova-premier', { contextWindow: 1_000_000 }],
    [
      'global.amazon.nova-2-lite-v1:0',
      'nova-2-lite',
      { reasoning: { kind: 'effort', efforts: ['none', 'low', 'medium', 'high'] } },
    ],
    ['meta.llama3-70b-instruct-v1:0', 'llama-3-bedrock', { toolUse: false }],
    [
      'us.meta.llama3-3-70b-instruct-v1:0',
      'llama-3.1-bedrock',
      { forcedToolChoice: false, imageInput: false },
    ],
    ['us.meta.llama3-2-90b-instruct-v1:0', 'llama-3.2-vision-bedrock', { imageInput: true }],
    ['us.meta.llama4-scout-17b-instruct-v1:0', 'llama-4-scout-bedrock', { imageInput: true }],
    ['us.meta.llama4-maverick-17b-instruct-v1:0', 'llama-4-maverick-bedrock', { imageInput: true }],
    ['mistral.mistral-large-2407-v1:0', 'mistral-large', { forcedToolChoice: true }],
    ['us.mistral.pixtral-large-2502-v1:0', 'pixtral-large', { imageInput: true }],
    [
      'us.deepseek.r1-v1:0',
      'deepseek-r1-bedrock',
      { toolUse: false, reasoning: { kind: 'always' } },
    ],
    ['deepseek.v3-v1:0', 'deepseek-v3-bedrock', { reasoning: { kind: 'none' } }],
    ['qwen.qwen3-32b-v1:0', 'qwen3', {}],
  ])('profiles %s as %s', (id, family, fields) => {
    expect(matchModelProfile(id)).toMatchObject({ family, ...fields })
  })

  it('keeps the self-hosted Llama names on their own profile', () => {
    expect(matchModelProfile('meta-llama/Llama-3.3-70B-Instruct').family).toBe('llama-3')
    expect(matchModelProfile('llama3.1:8b').family).toBe('llama-3')
  })

  it.each([
    ['us.amazon.nova-pro-v1:0', 0.8, 3.2, 0.2],
    ['amazon.nova-micro-v1:0', 0.035, 0.14, 0.00875],
    ['us.meta.llama4-maverick-17b-instruct-v1:0', 0.24, 0.97, undefined],
    ['us.deepseek.r1-v1:0', 1.35, 5.4, undefined],
    ['mistral.pixtral-large-2502-v1:0', 2, 6, undefined],
    ['qwen.qwen3-235b-a22b-2507-v1:0', 0.22, 0.88, undefined],
  ])('prices %s from AWS’s page', (id, input, output, cached) => {
    const price = createPriceCatalogue().lookup(id)
    expect(price?.source).toBe('https://aws.amazon.com/bedrock/pricing/')
    expect(usdPerMillion(price!.base.input)).toBeCloseTo(input, 9)
    expect(usdPerMillion(price!.base.output)).toBeCloseTo(output, 9)
    if (cached !== undefined) expect(usdPerMillion(price!.base.cachedInput)).toBeCloseTo(cached, 9)
  })
})
