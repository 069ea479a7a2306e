import { describe, expect, it } from 'vitest'
import type { ChatResponse } from '../../../src/canonical/types'
import {
  canonicalUsageToResponses,
  responsesUsageToCanonical,
} from '../../../src/protocols/responses/canonical-usage'
import {
  decodeResponsesResponse,
  encodeResponsesResponse,
} from '../../../src/protocols/responses/response'
import { decode, usage } from './helpers'

const meta = { requestId: 'req_7', model: 'client-model', created: 1_763_000_000 }

describe('Responses answers', () => {
  it('RESP-RES-01/02/03: skeleton, echoes, one item per part with ids, usage with every field', () => {
    const response: ChatResponse = {
      id: 'up',
      model: 'upstream-model',
      content: [
        { type: 'text', text: 'Hello ' },
        { type: 'text', text: 'there.' },
        { type: 'tool-call', id: 'call_1', name: 'f', arguments: '' },
      ],
      finishReason: { unified: 'tool-calls' },
      usage,
    }
    const { context } = decode({
      instructions: 'x',
      metadata: { a: 'b' },
      store: false,
      tools: [{ type: 'function', name: 'f' }],
    })
    expect(encodeResponsesResponse(response, meta, context)).toEqual({
      id: 'resp_req7',
      object: 'response',
      created_at: 1_763_000_000,
      status: 'completed',
      background: false,
      error: null,
      incomplete_details: null,
      instructions: 'x',
      max_output_tokens: null,
      metadata: { a: 'b' },
      parallel_tool_calls: true,
      previous_response_id: null,
      prompt_cache_key: null,
      reasoning: { effort: null, summary: null },
      store: false,
      temperature: 1,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [{ type: 'function', name: 'f' }],
      top_p: 1,
      truncation: 'disabled',
      model: 'client-model',
      output: [
        {
          id: 'msg_req7_0',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello there.', annotations: [], logprobs: [] }],
        },
        {
          id: 'fc_req7_1',
          type: 'function_call',
          status: 'completed',
          call_id: 'call_1',
          name: 'f',
          arguments: '{}',
        },
      ],
      service_tier: 'default',
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 100 },
        output_tokens: 30,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 150,
      },
      user: null,
    })
  })

  it('RESP-USE-01: Anthropic cache writes count as input and are named', () => {
    expect(
      canonicalUsageToResponses({
        input: { total: 50, cacheRead: 10, cacheWrite: 5 },
        output: { total: 7 },
      }),
    ).toEqual({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 10, cache_write_tokens: 5 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 57,
    })
    expect(
      responsesUsageToCanonical({
        input_tokens: 50,
        input_tokens_details: { cached_tokens: 10, cache_write_tokens: 5 },
        output_tokens: 7,
      }),
    ).toEqual({
      input: { total: 50, uncached: 35, cacheRead: 10, cacheWrite: 5 },
      output: { total: 7, reasoning: undefined },
    })
  })

  it('decodes an upstream Response: text, refusal, reasoning, calls, custom calls and status', () => {
    const decoded = decodeResponsesResponse({
      id: 'resp_up',
      model: 'gpt-5',
      status: 'completed',
      output: [
        {
          type: 'reasoning',
          id: 'rs',
          summary: [{ type: 'summary_text', text: 'hmm' }],
          encrypted_content: 'gAAA',
        },
        {
          type: 'message',
          content: [
            { type: 'output_text', text: 'Hi' },
            { type: 'refusal', refusal: 'no' },
          ],
        },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'g', input: 'raw' },
        { type: 'web_search_call', id: 'ws' },
      ],
      usage: { input_tokens: 3, output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 } },
    })
    expect(decoded).toEqual({
      id: 'resp_up',
      model: 'gpt-5',
      content: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'Hi' },
        { type: 'tool-call', id: 'c1', name: 'f', arguments: '{"a":1}' },
        { type: 'tool-call', id: 'c2', name: 'g', arguments: '{"input":"raw"}' },
      ],
      refusal: 'no',
      finishReason: { unified: 'tool-calls', raw: 'completed' },
      usage: {
        input: { total: 3, uncached: 3, cacheRead: undefined, cacheWrite: undefined },
        output: { total: 4, reasoning: 2 },
      },
    })
    expect(
      decodeResponsesResponse({
        status: 'incomplete',
        incomplete_details: { reason: 'content_filter' },
      }).finishReason,
    ).toEqual({
      unified: 'content-filter',
      raw: 'content_filter',
    })
  })
})
