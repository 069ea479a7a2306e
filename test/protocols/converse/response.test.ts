import { describe, expect, it } from 'vitest'
import { decodeConverseResponse } from '../../../src/protocols/converse/response'
import { converseUsageToCanonical } from '../../../src/protocols/converse/canonical-usage'

describe('Converse answer decoding', () => {
  it('reads text, signed and redacted reasoning, tool use, the stop reason and usage with cache tokens', () => {
    const response = decodeConverseResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'Hmm.', signature: 'c2ln' } } },
              { reasoningContent: { redactedContent: 'UkVE' } },
              { text: 'Checking.' },
              { toolUse: { toolUseId: 'tooluse_1', name: 'mcp_search', input: { q: 'x' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: {
          inputTokens: 10,
          outputTokens: 20,
          totalTokens: 80,
          cacheReadInputTokens: 30,
          cacheWriteInputTokens: 20,
        },
        metrics: { latencyMs: 100 },
      },
      {
        id: 'resp-1',
        model: 'amazon.nova-pro-v1:0',
        toolNames: new Map([['mcp_search', 'mcp.search']]),
      },
    )
    expect(response).toEqual({
      id: 'resp-1',
      model: 'amazon.nova-pro-v1:0',
      content: [
        { type: 'reasoning', text: 'Hmm.', signature: { protocol: 'converse', value: 'c2ln' } },
        { type: 'reasoning', text: '', redacted: { protocol: 'converse', value: 'UkVE' } },
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', id: 'tooluse_1', name: 'mcp.search', arguments: '{"q":"x"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: {
        input: { total: 60, uncached: 10, cacheRead: 30, cacheWrite: 20 },
        output: { total: 20 },
      },
    })
  })

  it('keeps unreported usage unreported, never a silent zero', () => {
    expect(converseUsageToCanonical(undefined)).toEqual({ input: {}, output: {} })
    expect(converseUsageToCanonical({ outputTokens: 5 })).toEqual({
      input: { total: undefined, uncached: undefined, cacheRead: undefined, cacheWrite: undefined },
      output: { total: 5 },
    })
  })

  it('reads a guardrail intervention as a content filter, and unsigned reasoning without a signature', () => {
    const response = decodeConverseResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [{ reasoningContent: { reasoningText: { text: 'R1 thinks' } } }, { text: '' }],
          },
        },
        stopReason: 'guardrail_intervened',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      },
      { id: 'r', model: 'deepseek.r1-v1:0' },
    )
    expect(response.content).toEqual([{ type: 'reasoning', text: 'R1 thinks' }])
    expect(response.finishReason).toEqual({
      unified: 'content-filter',
      raw: 'guardrail_intervened',
    })
  })
})
