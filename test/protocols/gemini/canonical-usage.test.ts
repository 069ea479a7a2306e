import { describe, expect, it } from 'vitest'
import type { Usage } from '../../../src/canonical/types'
import {
  canonicalUsageToGemini,
  geminiUsageToCanonical,
} from '../../../src/protocols/gemini/canonical-usage'

describe('Gemini usage (checklist §3.3, USE-01)', () => {
  it('reads the recorded 9 + 5 + 185 = 199: candidates exclude thoughts', () => {
    expect(
      geminiUsageToCanonical({
        promptTokenCount: 9,
        candidatesTokenCount: 5,
        thoughtsTokenCount: 185,
        totalTokenCount: 199,
      }),
    ).toEqual({ input: { total: 9, uncached: 9 }, output: { total: 190, reasoning: 185 } })
  })

  it('counts cached tokens inside the prompt and tool-use prompt tokens as input', () => {
    expect(
      geminiUsageToCanonical({
        promptTokenCount: 2070,
        cachedContentTokenCount: 2048,
        toolUsePromptTokenCount: 30,
        candidatesTokenCount: 9,
        totalTokenCount: 2109,
      }),
    ).toEqual({
      input: { total: 2100, uncached: 52, cacheRead: 2048 },
      output: { total: 9 },
    })
  })

  it('reports nothing for missing or malformed metadata, never a silent zero', () => {
    expect(geminiUsageToCanonical(undefined)).toEqual({ input: {}, output: {} })
    expect(geminiUsageToCanonical([1])).toEqual({ input: {}, output: {} })
    const partial = geminiUsageToCanonical({ promptTokenCount: 4, candidatesTokenCount: '3' })
    expect(partial.output.total).toBeUndefined()
    expect(partial.input.total).toBe(4)
  })

  it('writes usageMetadata whose total is prompt + candidates + thoughts', () => {
    const usage: Usage = {
      input: { total: 100, uncached: 60, cacheRead: 40 },
      output: { total: 30, reasoning: 12 },
    }
    expect(canonicalUsageToGemini(usage)).toEqual({
      promptTokenCount: 100,
      candidatesTokenCount: 18,
      thoughtsTokenCount: 12,
      cachedContentTokenCount: 40,
      totalTokenCount: 130,
    })
  })

  it('leaves zero thoughts and cache out, and never goes negative', () => {
    expect(canonicalUsageToGemini({ input: { total: 5 }, output: { total: 2 } })).toEqual({
      promptTokenCount: 5,
      candidatesTokenCount: 2,
      totalTokenCount: 7,
    })
    // Reasoning with no output total: the thoughts are all the output known.
    expect(canonicalUsageToGemini({ input: {}, output: { reasoning: 9 } })).toEqual({
      promptTokenCount: 0,
      candidatesTokenCount: 0,
      thoughtsTokenCount: 9,
      totalTokenCount: 9,
    })
    const odd = canonicalUsageToGemini({ input: { total: 1 }, output: { total: 4, reasoning: 9 } })
    expect(odd).toEqual({
      promptTokenCount: 1,
      candidatesTokenCount: 0,
      thoughtsTokenCount: 4,
      totalTokenCount: 5,
    })
  })

  it('round-trips Gemini counts', () => {
    const metadata = {
      promptTokenCount: 58,
      candidatesTokenCount: 22,
      thoughtsTokenCount: 74,
      cachedContentTokenCount: 16,
      totalTokenCount: 154,
    }
    expect(canonicalUsageToGemini(geminiUsageToCanonical(metadata))).toEqual(metadata)
  })
})
