import { describe, expect, it } from 'vitest'
import { settledUsage } from '../../src/usage/settled-usage'

const estimate = { inputTokens: 30, outputTokens: 4096 }
const reported = {
  inputTokens: 12,
  outputTokens: 3,
  cachedInputTokens: 2,
  cacheWriteInputTokens: 0,
  cacheWrite1hInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 15,
}
const guess = (input: number, output: number) => ({
  usage: {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    reasoningTokens: 0,
    totalTokens: input + output,
  },
  estimated: true,
})
const nothing = { usage: undefined, estimated: false }

describe('settledUsage', () => {
  it('keeps what the upstream reported, whatever the outcome', () => {
    for (const outcome of ['ok', 'error', 'aborted'] as const) {
      expect(settledUsage(reported, outcome, estimate, 'answered')).toEqual({
        usage: reported,
        estimated: false,
      })
    }
  })

  it('settles a whole answer without usage at the reservation: input estimate plus output allowance', () => {
    expect(settledUsage(undefined, 'ok', estimate, 'answered')).toEqual(guess(30, 4096))
  })

  it('settles a call the client left after it was sent at the input estimate, and one never sent at nothing', () => {
    expect(settledUsage(undefined, 'aborted', estimate, 'answered')).toEqual(guess(30, 0))
    expect(settledUsage(undefined, 'aborted', estimate, 'sent')).toEqual(guess(30, 0))
    expect(settledUsage(undefined, 'aborted', estimate, 'not-sent')).toEqual(nothing)
  })

  it('settles a failure after the answer began at the input estimate, and one before it at nothing', () => {
    expect(settledUsage(undefined, 'error', estimate, 'answered')).toEqual(guess(30, 0))
    expect(settledUsage(undefined, 'error', estimate, 'sent')).toEqual(nothing)
    expect(settledUsage(undefined, 'error', estimate, 'not-sent')).toEqual(nothing)
  })
})
