import { describe, expect, it } from 'vitest'
import { builtInPriceRows, createPriceCatalogue } from '../../src/pricing/price-catalogue'
import { isExactPrice } from '../../src/pricing/price-units'
import { matchModelProfile } from '../../src/models/match-profile'

const catalogue = createPriceCatalogue()
const modelOf = (name: string) => catalogue.lookup(name)?.model

describe('the built-in catalogue', () => {
  it('gives every row a source URL, an as-of date, and exact prices in ascending tiers', () => {
    for (const row of builtInPriceRows()) {
      expect(row.source, row.model).toMatch(/^https:\/\//)
      expect(row.asOf, row.model).toMatch(/^20\d\d-\d\d-\d\d$/)
      const { tiers, ...base } = row.price
      for (const value of Object.values(base))
        expect(isExactPrice(value as number), row.model).toBe(true)
      let last = 0
      for (const tier of tiers ?? []) {
        expect(tier.aboveInputTokens).toBeGreaterThan(last)
        last = tier.aboveInputTokens
      }
    }
  })

  it('matches names as model profiles do: snapshots, aliases, Bedrock and Vertex ids', () => {
    expect(modelOf('claude-sonnet-4-5')).toBe('claude-sonnet-4-5')
    expect(modelOf('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5')
    expect(modelOf('claude-sonnet-4.5')).toBe('claude-sonnet-4-5')
    expect(modelOf('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5')
    expect(modelOf('claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5')
    expect(modelOf('claude-3-7-sonnet-latest')).toBe('claude-3-7-sonnet')
    expect(modelOf('anthropic/claude-opus-4-1-20250805')).toBe('claude-opus-4-1')
    expect(modelOf('claude-opus-4-20250514')).toBe('claude-opus-4-1')
    expect(modelOf('claude-opus-4-7')).toBe('claude-opus-4-5')
    expect(modelOf('gpt-4o-2024-08-06')).toBe('gpt-4o')
    expect(modelOf('gpt-4o-mini-2024-07-18')).toBe('gpt-4o-mini')
    expect(modelOf('openai/gpt-5-2025-08-07')).toBe('gpt-5')
    expect(modelOf('gpt-5.4-mini')).toBe('gpt-5.4-mini')
    expect(modelOf('models/gemini-2.5-flash')).toBe('gemini-2.5-flash')
    expect(modelOf('gemini-2.5-flash-lite-preview-06-17')).toBe('gemini-2.5-flash-lite')
    expect(modelOf('gemini-2.5-flash-preview-09-2025')).toBe('gemini-2.5-flash')
  })

  it('leaves a variant with a price of its own unpriced rather than guessing', () => {
    // Audio, TTS and image models cost differently from their text siblings.
    for (const name of [
      'gpt-4o-audio-preview',
      'gpt-4o-realtime-preview',
      'gemini-2.5-flash-preview-tts',
      'gemini-2.5-flash-image-preview',
      'claude-instant-1.2',
      'my-local-llama',
    ]) {
      expect(catalogue.lookup(name), name).toBeUndefined()
    }
  })

  it('prices the families the model profiles know for the three vendors', () => {
    for (const name of [
      'gpt-4o',
      'gpt-4.1',
      'gpt-4.1-mini',
      'o3',
      'o4-mini',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5.1',
      'gpt-5.2',
      'gpt-5.4',
      'gpt-5.5',
      'claude-3-5-haiku-20241022',
      'claude-haiku-4-5',
      'claude-sonnet-4-6',
      'claude-opus-4-6',
      'claude-sonnet-5',
      'claude-sonnet-5-5',
      'claude-opus-5-5',
      'claude-fable-5-1',
      'gemini-2.5-pro',
      'gemini-3.1-pro-preview',
      'gemini-3.5-flash',
    ]) {
      expect(catalogue.lookup(name), name).toBeDefined()
      expect(matchModelProfile(name).family, name).not.toBe('unknown')
    }
  })
})

describe('overrides', () => {
  it('merges a prices entry field by field over the built-in row', () => {
    const custom = createPriceCatalogue({
      overrides: { 'claude-sonnet-4-5*': { input: 2.5, source: 'contract', asOf: '2026-11-01' } },
    })
    const price = custom.lookup('claude-sonnet-4-5-20250929')!
    expect(price.price).toMatchObject({ input: 2.5, output: 15, cacheWrite: 3.75 })
    expect(price.tiers).toHaveLength(1)
    expect(price.source).toBe('contract')
    expect(price.asOf).toBe('2026-11-01')
  })

  it('lays the more literal pattern last, and false marks a model unpriced', () => {
    const custom = createPriceCatalogue({
      overrides: {
        'claude-*': { cacheWrite1h: 9 },
        'claude-opus-4-1': { input: 14 },
        'gpt-4o*': false,
      },
    })
    expect(custom.lookup('claude-opus-4-1')!.price).toMatchObject({ input: 14, cacheWrite1h: 9 })
    expect(custom.lookup('gpt-4o-mini')).toBeUndefined()
    expect(custom.lookup('gpt-4.1')).toBeDefined()
  })

  it('prices a model the catalogue does not know from a complete price, never a partial one', () => {
    const custom = createPriceCatalogue({
      overrides: { 'my-llama': { input: 0.2, output: 0.6 }, 'half-priced': { input: 1 } },
    })
    expect(custom.lookup('my-llama')).toMatchObject({
      model: 'my-llama',
      source: 'config: prices["my-llama"]',
    })
    expect(custom.lookup('half-priced')).toBeUndefined()
  })

  it('starts empty without the built-in rows', () => {
    const empty = createPriceCatalogue({
      builtIn: false,
      overrides: { 'gpt-4o': { input: 1, output: 2 } },
    })
    expect(empty.lookup('gpt-4o')).toBeDefined()
    expect(empty.lookup('gpt-4o-mini')).toBeUndefined()
  })

  it("prices a model entry with its own price over the catalogue's, once per entry", () => {
    const entry = { name: 'fast', upstreamModel: 'gpt-4o-mini', price: { output: 1 } }
    const price = catalogue.forModel(entry)!
    expect(price.price).toMatchObject({ input: 0.15, output: 1 })
    expect(catalogue.forModel(entry)).toBe(price)
    expect(
      catalogue.forModel({ name: 'free', upstreamModel: 'gpt-4o', price: false }),
    ).toBeUndefined()
  })
})
