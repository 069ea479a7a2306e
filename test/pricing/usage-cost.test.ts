import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPriceCatalogue } from '../../src/pricing/price-catalogue'
import { formatUsd, picoToNano } from '../../src/pricing/price-units'
import { resolvePrice } from '../../src/pricing/resolved-price'
import { estimatedCostNano, usageCost } from '../../src/pricing/usage-cost'
import type { TokenUsage } from '../../src/usage/usage-meter'

const catalogue = createPriceCatalogue()

/** Usage by category, `inputTokens` inclusive of every cached and written token. */
function usage(parts: {
  uncached?: number
  cached?: number
  written?: number
  writtenHour?: number
  output?: number
  reasoning?: number
}): TokenUsage {
  const input =
    (parts.uncached ?? 0) + (parts.cached ?? 0) + (parts.written ?? 0) + (parts.writtenHour ?? 0)
  return {
    inputTokens: input,
    outputTokens: parts.output ?? 0,
    cachedInputTokens: parts.cached ?? 0,
    cacheWriteInputTokens: parts.written ?? 0,
    cacheWrite1hInputTokens: parts.writtenHour ?? 0,
    reasoningTokens: parts.reasoning ?? 0,
    totalTokens: input + (parts.output ?? 0),
  }
}

describe('the two vendor-confirmed examples (research §2.6)', () => {
  it('Claude Sonnet 3.7: 3 input, 12,304 cache write (5 m), 550 output = $0.054399', () => {
    const price = catalogue.lookup('claude-3-7-sonnet-20250219')!
    const cost = usageCost(usage({ uncached: 3, written: 12_304, output: 550 }), price, 1)
    expect(cost.nanoUsd).toBe(54_399_000)
    expect(cost.listNanoUsd).toBe(54_399_000)
    // The Anthropic console rounds it to $0.05439 (LiteLLM #9812).
    expect(formatUsd(cost.nanoUsd)).toBe('$0.054399')
    expect(cost.price).toMatchObject({
      model: 'claude-3-7-sonnet',
      input: 3,
      cacheWrite: 3.75,
      cacheWrite1h: 6,
      cachedInput: 0.3,
      output: 15,
      multiplier: 1,
    })
  })

  it('GPT-5.6 Luna: 834 uncached, 9,984 cached, 8 output = $0.0018804', () => {
    const price = catalogue.lookup('gpt-5.6-luna')!
    const cost = usageCost(usage({ uncached: 834, cached: 9_984, output: 8 }), price, 1)
    expect(cost.nanoUsd).toBe(1_880_400)
    expect(formatUsd(cost.nanoUsd)).toBe('$0.0018804')
  })
})

describe('usageCost', () => {
  it('prices each category apart: 1-hour writes at 2× input, 5-minute at 1.25×, reads at 0.1×', () => {
    const price = catalogue.lookup('claude-sonnet-4-5-20250929')!
    const cost = usageCost(
      usage({ uncached: 1000, cached: 2000, written: 3000, writtenHour: 4000, output: 500 }),
      price,
      1,
    )
    // 1000×3 + 2000×0.3 + 3000×3.75 + 4000×6 + 500×15 USD per 1M tokens
    expect(cost.nanoUsd).toBe(3_000_000 + 600_000 + 11_250_000 + 24_000_000 + 7_500_000)
  })

  it('switches a whole request to the long-context tier once its input passes 200K', () => {
    const price = catalogue.lookup('claude-sonnet-4-5')!
    const at = usageCost(usage({ uncached: 200_000, output: 1000 }), price, 1)
    expect(at.nanoUsd).toBe(200_000 * 3000 + 1000 * 15_000)
    expect(at.price.aboveInputTokens).toBeUndefined()
    // One token more: every token, cached, written and output included, at the tier's price.
    const above = usageCost(
      usage({ uncached: 190_001, cached: 5_000, written: 5_000, output: 1000 }),
      price,
      1,
    )
    expect(above.nanoUsd).toBe(190_001 * 6000 + 5_000 * 600 + 5_000 * 7500 + 1000 * 22_500)
    expect(above.price).toMatchObject({ aboveInputTokens: 200_000, input: 6, output: 22.5 })
  })

  it('prices Gemini thinking as output: the output tokens include the thoughts', () => {
    const price = catalogue.lookup('models/gemini-2.5-flash')!
    const cost = usageCost(usage({ uncached: 100, output: 1100, reasoning: 1000 }), price, 1)
    expect(cost.nanoUsd).toBe(100 * 300 + 1100 * 2500)
  })

  it('applies a multiplier to the list cost, exactly, rounding once', () => {
    const price = catalogue.lookup('gpt-4o-mini')!
    const cost = usageCost(usage({ uncached: 1000, output: 1000 }), price, 1.25)
    expect(cost.listNanoUsd).toBe(150_000 + 600_000)
    expect(cost.nanoUsd).toBe(937_500)
    expect(cost.price.multiplier).toBe(1.25)
  })

  it('costs 0 for a request that reported no usage, and keeps the price it would have paid', () => {
    const cost = usageCost(undefined, catalogue.lookup('o3')!, 1)
    expect(cost).toMatchObject({ nanoUsd: 0, listNanoUsd: 0, price: { model: 'o3' } })
  })

  it('adds a per-request price', () => {
    const price = resolvePrice(
      'search',
      { input: 1, output: 2, perRequest: 0.01 },
      'test',
      undefined,
    )!
    expect(usageCost(usage({ uncached: 1000 }), price, 1).nanoUsd).toBe(1_000_000 + 10_000_000)
  })

  it('is additive, integral and never drifts (property)', () => {
    const price = catalogue.lookup('claude-opus-4-1')!
    const category = fc.integer({ min: 0, max: 2_000_000 })
    fc.assert(
      fc.property(category, category, category, category, category, (a, b, c, d, out) => {
        const whole = usageCost(
          usage({ uncached: a, cached: b, written: c, writtenHour: d, output: out }),
          price,
          1,
        )
        const parts = [
          usage({ uncached: a }),
          usage({ cached: b }),
          usage({ written: c }),
          usage({ writtenHour: d }),
          usage({ output: out }),
        ].map((part) => usageCost(part, price, 1).nanoUsd)
        expect(Number.isSafeInteger(whole.nanoUsd)).toBe(true)
        // Catalogue prices are whole nano-USD a token: the parts add up exactly (below the tier).
        if (a + b + c + d <= 200_000) expect(parts.reduce((x, y) => x + y, 0)).toBe(whole.nanoUsd)
      }),
    )
  })
})

describe('estimatedCostNano', () => {
  it('holds the input estimate at the input price and the output allowance at the output price', () => {
    const price = catalogue.lookup('claude-3-7-sonnet')!
    expect(estimatedCostNano(price, { inputTokens: 1000, outputTokens: 4096 }, 1)).toBe(
      1000 * 3000 + 4096 * 15_000,
    )
    // Past a tier, at the tier's prices.
    const tiered = catalogue.lookup('gemini-2.5-pro')!
    expect(estimatedCostNano(tiered, { inputTokens: 300_000, outputTokens: 10 }, 1)).toBe(
      300_000 * 2500 + 10 * 15_000,
    )
  })

  it('rounds a hold up, never down', () => {
    const price = resolvePrice('x', { input: 0.000001, output: 0 }, 'test', undefined)!
    expect(estimatedCostNano(price, { inputTokens: 1, outputTokens: 0 }, 1)).toBe(1)
    expect(picoToNano(1)).toBe(0)
  })
})
