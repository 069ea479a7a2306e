import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { StreamEvent } from '../../../src/canonical/types'
import { GatewayError } from '../../../src/errors'
import { readReasoningBlob } from '../../../src/protocols/responses/reasoning-blob'
import type { ResponsesObject } from '../../../src/protocols/responses/response-object'
import { expectResponsesStreamOrder } from '../../helpers/responses-stream'
import { encodeStream, usage } from './helpers'

const start: StreamEvent = { type: 'message-start', id: 'up-1', model: 'upstream-model' }
const finish = (
  unified: 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' = 'stop',
): StreamEvent => ({
  type: 'finish',
  finishReason: { unified },
  usage,
})
const text = (index: number, ...pieces: string[]): StreamEvent[] => [
  { type: 'text-start', index },
  ...pieces.map((delta): StreamEvent => ({ type: 'text-delta', index, delta })),
  { type: 'text-end', index },
]
const call = (index: number, id: string, name: string, ...args: string[]): StreamEvent[] => [
  { type: 'tool-call-start', index, id, name },
  ...args.map((argumentsDelta): StreamEvent => ({
    type: 'tool-call-delta',
    index,
    argumentsDelta,
  })),
  { type: 'tool-call-end', index },
]
const types = (sse: string) => expectResponsesStreamOrder(sse).map((event) => event.data['type'])

describe('Responses stream encoder', () => {
  it('RESP-STR-01/02/03/07: text is a message item from added to done, numbered 0, 1, 2…', () => {
    const sse = encodeStream([start, ...text(0, 'Hel', '', 'lo'), finish()])
    expect(sse).not.toContain('[DONE]')
    expect(types(sse)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    const events = expectResponsesStreamOrder(sse)
    expect(events[0]!.data['response']).toMatchObject({
      id: 'resp_req1',
      object: 'response',
      status: 'in_progress',
      model: 'client-model',
      output: [],
      usage: null,
      created_at: 1_763_000_000,
    })
    expect(events.at(-1)!.data['response']).toMatchObject({
      status: 'completed',
      output: [
        {
          id: 'msg_req1_0',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }],
        },
      ],
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 100 },
        output_tokens: 30,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 150,
      },
    })
  })

  it('RESP-STR-04/05/09: items follow one another with dense indices and ids minted once', () => {
    const sse = encodeStream([
      start,
      ...text(0, 'Let me check.'),
      ...call(1, 'call_a', 'get_weather', '{"city":', '"Paris"}'),
      ...call(2, 'call_b', 'get_time', ''),
      finish('tool-calls'),
    ])
    const events = expectResponsesStreamOrder(sse)
    const done = events.filter((event) => event.data['type'] === 'response.output_item.done')
    expect(done.map((event) => event.data['item'])).toEqual([
      expect.objectContaining({ id: 'msg_req1_0' }),
      {
        id: 'fc_req1_1',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_a',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
      {
        id: 'fc_req1_2',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_b',
        name: 'get_time',
        arguments: '{}',
      },
    ])
    const argsDone = events.filter(
      (event) => event.data['type'] === 'response.function_call_arguments.done',
    )
    expect(argsDone.map((event) => event.data['arguments'])).toEqual(['{"city":"Paris"}', '{}'])
  })

  it('RESP-STR-08: reasoning is summarised only when asked, and its blob rides in the done item', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'Thinking ' },
      { type: 'reasoning-delta', index: 0, delta: 'hard.' },
      { type: 'reasoning-end', index: 0, signature: { protocol: 'anthropic', value: 'sig-1' } },
      ...text(1, 'Done.'),
      finish(),
    ]
    const summarised = expectResponsesStreamOrder(
      encodeStream(events, {
        reasoning: { effort: 'high', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
      }),
    )
    expect(summarised.map((event) => event.data['type']).slice(2, 9)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ])
    const item = summarised[8]!.data['item']
    expect(item).toMatchObject({
      id: 'rs_req1_0',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Thinking hard.' }],
    })
    expect(readReasoningBlob(item['encrypted_content'])).toEqual({
      type: 'reasoning',
      text: 'Thinking hard.',
      signature: { protocol: 'anthropic', value: 'sig-1' },
    })

    const plain = expectResponsesStreamOrder(encodeStream(events))
    const plainItem = plain.find((event) => event.data['type'] === 'response.output_item.done')!
      .data['item']
    expect(plainItem).toEqual({ id: 'rs_req1_0', type: 'reasoning', summary: [] })
  })

  it('RESP-RES-04: with store: false the blob is included without being asked for', () => {
    const events = expectResponsesStreamOrder(
      encodeStream(
        [
          start,
          {
            type: 'reasoning-start',
            index: 0,
            redacted: { protocol: 'anthropic', value: 'REDACTED' },
          },
          { type: 'reasoning-end', index: 0 },
          finish(),
        ],
        { store: false },
      ),
    )
    const item = events.find((event) => event.data['type'] === 'response.output_item.done')!.data[
      'item'
    ]
    expect(readReasoningBlob(item['encrypted_content'])).toEqual({
      type: 'reasoning',
      text: '',
      redacted: { protocol: 'anthropic', value: 'REDACTED' },
    })
  })

  it('RESP-STR-10: a custom tool call is a custom_tool_call with the raw input, never a function_call', () => {
    const tools = [
      {
        type: 'custom',
        name: 'apply_patch',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
      },
    ]
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+"hi"\n*** End Patch'
    const wrapped = JSON.stringify({ input: patch })
    const sse = encodeStream(
      [
        start,
        ...call(0, 'toolu_1', 'apply_patch', wrapped.slice(0, 11), wrapped.slice(11)),
        finish('tool-calls'),
      ],
      { tools },
    )
    const events = expectResponsesStreamOrder(sse)
    expect(events.map((event) => event.data['type'])).not.toContain(
      'response.function_call_arguments.delta',
    )
    expect(events[2]!.data['item']).toEqual({
      id: 'ctc_req1_0',
      type: 'custom_tool_call',
      status: 'in_progress',
      call_id: 'toolu_1',
      name: 'apply_patch',
      input: '',
    })
    expect(
      events.find((event) => event.data['type'] === 'response.custom_tool_call_input.done')!.data[
        'input'
      ],
    ).toBe(patch)
    expect(events.at(-1)!.data['response']['output']).toEqual([
      {
        id: 'ctc_req1_0',
        type: 'custom_tool_call',
        status: 'completed',
        call_id: 'toolu_1',
        name: 'apply_patch',
        input: patch,
      },
    ])
  })

  it('RESP-TOOL-02: a call of a namespaced tool goes back under its namespace', () => {
    const tools = [
      { type: 'function', name: 'read_file', parameters: { type: 'object' } },
      {
        type: 'namespace',
        name: 'mcp__fs',
        tools: [
          { type: 'function', name: 'read_file' },
          { type: 'function', name: 'list' },
        ],
      },
    ]
    const events = expectResponsesStreamOrder(
      encodeStream(
        [
          start,
          ...call(0, 'c1', 'mcp__fs__read_file', '{}'),
          ...call(1, 'c2', 'list', '{}'),
          finish('tool-calls'),
        ],
        { tools },
      ),
    )
    expect(events.at(-1)!.data['response']['output']).toEqual([
      expect.objectContaining({ type: 'function_call', namespace: 'mcp__fs', name: 'read_file' }),
      expect.objectContaining({ type: 'function_call', namespace: 'mcp__fs', name: 'list' }),
    ])
  })

  it('RESP-RES-05: length ends incomplete for max_output_tokens, a content filter for content_filter', () => {
    const length = expectResponsesStreamOrder(
      encodeStream([start, ...text(0, 'Once'), finish('length')]),
    )
    expect(length.at(-1)!.data).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    })
    const filtered = expectResponsesStreamOrder(encodeStream([start, finish('content-filter')]))
    expect(filtered.at(-1)!.data['response']['incomplete_details']).toEqual({
      reason: 'content_filter',
    })
    const failed = expectResponsesStreamOrder(encodeStream([start, finish('error')]))
    expect(failed.at(-1)!.data['response']).toMatchObject({
      status: 'failed',
      error: { code: 'server_error' },
    })
  })

  it('RESP-RES-02: a refusal becomes a message item, as Codex knows no refusal part', () => {
    const events = expectResponsesStreamOrder(
      encodeStream([
        start,
        {
          type: 'finish',
          finishReason: { unified: 'content-filter' },
          refusal: 'I cannot help with that.',
          usage,
        },
      ]),
    )
    expect(events.at(-1)!.data['response']['output'][0]['content'][0]['text']).toBe(
      'I cannot help with that.',
    )
  })

  it('RESP-ERR-03: a mid-stream error is an error event, then response.failed with the items done so far', () => {
    const error = new GatewayError('rate_limited', 'Slow down.', {
      headers: { 'retry-after': '7' },
    })
    const events = expectResponsesStreamOrder(
      encodeStream([
        start,
        ...text(0, 'Par'),
        { type: 'text-start', index: 1 },
        { type: 'text-delta', index: 1, delta: 'is' },
        { type: 'error', error },
      ]),
    )
    const [failure, failed] = events.slice(-2)
    expect(failure!.data).toMatchObject({
      type: 'error',
      code: 'rate_limit_exceeded',
      message: 'Slow down. Please try again in 7s.',
      error: {
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        message: 'Slow down. Please try again in 7s.',
      },
    })
    expect(failed!.data['response']).toMatchObject({
      status: 'failed',
      error: { code: 'rate_limit_exceeded', message: 'Slow down. Please try again in 7s.' },
      output: [expect.objectContaining({ id: 'msg_req1_0' })],
    })
    // The openai SDK throws on any event whose data has a top-level `error`; only `error` has one.
    expect(
      events
        .filter((event) => event.data['error'] !== undefined)
        .map((event) => event.data['type']),
    ).toEqual(['error'])
  })

  it('RESP-STR-13: a stream that ends without a finish fails, never completes', () => {
    const events = expectResponsesStreamOrder(encodeStream([start, ...text(0, 'Par')]))
    expect(events.at(-1)!.data).toMatchObject({
      type: 'response.failed',
      response: { error: { code: 'server_error' } },
    })
  })

  it('RESP-STR-12: keepalives come only once the response was created', () => {
    const sse = encodeStream([start, ...text(0, 'a', 'b'), finish()], {}, { keepalives: [0, 2] })
    expect(types(sse).filter((type) => type === 'keepalive')).toHaveLength(2)
  })

  it('hands the completed response to the store with every reasoning blob', () => {
    let stored: ResponsesObject | undefined
    encodeStream(
      [
        start,
        { type: 'reasoning-start', index: 0 },
        { type: 'reasoning-delta', index: 0, delta: 'x' },
        { type: 'reasoning-end', index: 0 },
        finish(),
      ],
      {},
      { onComplete: (response) => void (stored = response) },
    )
    expect(stored?.output[0]).toMatchObject({
      type: 'reasoning',
      encrypted_content: expect.stringMatching(/^gwr1\./),
    })
  })

  it('keeps every ordering rule for any sequence of canonical blocks, errors and endings', () => {
    const block = fc.oneof(
      fc.array(fc.string(), { maxLength: 4 }).map((pieces) => ({ kind: 'text' as const, pieces })),
      fc
        .record({ pieces: fc.array(fc.string(), { maxLength: 3 }), signed: fc.boolean() })
        .map((value) => ({ kind: 'reasoning' as const, ...value })),
      fc
        .record({
          name: fc.constantFrom('get_weather', 'apply_patch', 'mcp__fs__read_file'),
          args: fc.array(fc.string(), { maxLength: 3 }),
        })
        .map((value) => ({ kind: 'call' as const, ...value })),
    )
    const ending = fc.constantFrom(
      'stop',
      'length',
      'tool-calls',
      'content-filter',
      'error-finish',
      'error',
      'none',
    )
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 6 }),
        ending,
        fc.boolean(),
        fc.boolean(),
        (blocks, end, summaries, keepalive) => {
          const events: StreamEvent[] = [start]
          blocks.forEach((block, index) => {
            if (block.kind === 'text') events.push(...text(index, ...block.pieces))
            else if (block.kind === 'call')
              events.push(...call(index, `call_${index}`, block.name, ...block.args))
            else {
              events.push({ type: 'reasoning-start', index })
              for (const delta of block.pieces)
                events.push({ type: 'reasoning-delta', index, delta })
              events.push({
                type: 'reasoning-end',
                index,
                ...(block.signed
                  ? { signature: { protocol: 'anthropic' as const, value: 's' } }
                  : {}),
              })
            }
          })
          if (end === 'error')
            events.push({ type: 'error', error: new GatewayError('upstream_error', 'broke') })
          else if (end === 'error-finish') events.push(finish('error'))
          else if (end !== 'none') events.push(finish(end))
          const body = {
            tools: [
              { type: 'function', name: 'get_weather' },
              { type: 'custom', name: 'apply_patch' },
              {
                type: 'namespace',
                name: 'mcp__fs',
                tools: [{ type: 'function', name: 'read_file' }],
              },
            ],
            ...(summaries ? { reasoning: { summary: 'auto' } } : {}),
          }
          expectResponsesStreamOrder(
            encodeStream(events, body, {
              keepalives: keepalive ? events.map((_, index) => index) : [],
            }),
          )
        },
      ),
      { numRuns: 300 },
    )
  })
})
