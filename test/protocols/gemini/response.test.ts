import { describe, expect, it } from 'vitest'
import {
  decodeAnthropicResponse,
  encodeAnthropicResponse,
} from '../../../src/protocols/anthropic/response'
import { decodeOpenAIRequest } from '../../../src/protocols/openai/request-decode'
import { openAIChatRequestSchema } from '../../../src/protocols/openai/request-schema'
import { encodeGeminiRequest } from '../../../src/protocols/gemini/request-encode'
import { unpackCarriedThinking } from '../../../src/protocols/gemini/carried-thinking'
import { decodeGeminiResponse, encodeGeminiResponse } from '../../../src/protocols/gemini/response'
import { decodeGeminiToolCallId } from '../../../src/protocols/gemini/tool-call-id'
import { renamedGeminiTools } from '../../../src/protocols/gemini/tool-name'
import { decodeOpenAIResponse, encodeOpenAIResponse } from '../../../src/protocols/openai/response'
import { anthropicMessage } from '../../helpers/anthropic-upstream'
import { chatCompletion } from '../../helpers/upstream'

/** A deterministic id source, as the gateway injects one. */
function ids() {
  let next = 0
  return () => `gen_${next++}`
}

const decode = (body: unknown) => decodeGeminiResponse(body, ids())
/** A Gemini upstream answer as an OpenAI client sees it. */
const gToO = (body: unknown) =>
  encodeOpenAIResponse(decode(body), { id: 'chatcmpl-x', model: 'alias', created: 1 })
/** A Gemini upstream answer as an Anthropic client sees it. */
const gToA = (body: unknown) =>
  encodeAnthropicResponse(decode(body), { id: 'msg_x', model: 'alias' })
const meta = { responseId: 'resp_x', modelVersion: 'alias' }
/** An OpenAI upstream answer as a Gemini client sees it. */
const oToG = (body: unknown) => encodeGeminiResponse(decodeOpenAIResponse(body), meta)
/** An Anthropic upstream answer as a Gemini client sees it. */
const aToG = (body: unknown) => encodeGeminiResponse(decodeAnthropicResponse(body), meta)

/** A `GenerateContentResponse` as Gemini sends it. */
function geminiResponse(
  parts: object[],
  options: { finishReason?: string; usageMetadata?: object } = {},
) {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        finishReason: options.finishReason ?? 'STOP',
        index: 0,
      },
    ],
    usageMetadata: options.usageMetadata ?? {
      promptTokenCount: 9,
      candidatesTokenCount: 5,
      totalTokenCount: 14,
    },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp_upstream',
  }
}

describe('generateContent → canonical response', () => {
  it('RESP-02: thought, text and two function calls become reasoning, text and two tool calls', () => {
    const body = gToO(
      geminiResponse([
        { text: 'Let me ', thought: true },
        { text: 'think.', thought: true },
        { text: 'Checking ' },
        { text: 'both.' },
        { functionCall: { name: 'a', args: { x: 1 } } },
        { functionCall: { name: 'b', args: {} } },
      ]),
    )
    expect(body.choices[0]).toMatchObject({
      message: {
        content: 'Checking both.',
        reasoning_content: 'Let me think.',
        tool_calls: [
          { id: 'gen_0', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
          { id: 'gen_1', type: 'function', function: { name: 'b', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    })
  })

  it('RESP-03: a function call without args has arguments {}', () => {
    expect(gToA(geminiResponse([{ functionCall: { name: 'read_theme' } }])).content).toEqual([
      { type: 'tool_use', id: 'gen_0', name: 'read_theme', input: {} },
    ])
  })

  it('RESP-04 (bug 3): STOP with a function call is tool_calls / tool_use', () => {
    const body = geminiResponse([{ text: 'ok' }, { functionCall: { name: 'f', args: {} } }])
    expect(gToO(body).choices[0]?.finish_reason).toBe('tool_calls')
    expect(gToA(body).stop_reason).toBe('tool_use')
  })

  it.each([
    ['STOP', 'stop', 'end_turn'],
    ['MAX_TOKENS', 'length', 'max_tokens'],
    ['SAFETY', 'content_filter', 'refusal'],
    ['RECITATION', 'content_filter', 'refusal'],
    ['PROHIBITED_CONTENT', 'content_filter', 'refusal'],
    ['OTHER', 'stop', 'end_turn'],
  ])('FIN: finishReason %s becomes %s / %s', (finishReason, openai, anthropic) => {
    const body = geminiResponse([{ text: 'x' }], { finishReason })
    expect(gToO(body).choices[0]?.finish_reason).toBe(openai)
    expect(gToA(body).stop_reason).toBe(anthropic)
  })

  it('USE-01: usage counts thoughts as output and cached content as cache reads', () => {
    const body = geminiResponse([{ text: 'x' }], {
      usageMetadata: {
        promptTokenCount: 9,
        cachedContentTokenCount: 4,
        candidatesTokenCount: 5,
        thoughtsTokenCount: 185,
        totalTokenCount: 199,
      },
    })
    expect(gToO(body).usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 190,
      total_tokens: 199,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 185 },
    })
    expect(gToA(body).usage).toEqual({
      input_tokens: 5,
      cache_read_input_tokens: 4,
      cache_creation_input_tokens: 0,
      output_tokens: 190,
    })
  })

  it('TOOL-H-09 (bug 8): a call thought signature is folded into an Anthropic-safe id', () => {
    const response = decode(
      geminiResponse([
        { functionCall: { name: 'f', args: {} }, thoughtSignature: 'CiQB+/x/abc=' },
        { functionCall: { id: 'own', name: 'g', args: {} } },
      ]),
    )
    const [first, second] = response.content as Array<{ id: string; signature?: unknown }>
    expect(first!.id).toMatch(/^[a-zA-Z0-9_-]+$/)
    expect(decodeGeminiToolCallId(first!.id)).toEqual({ signature: 'CiQB+/x/abc=', id: 'gen_0' })
    expect(first!.signature).toEqual({ protocol: 'gemini', value: 'CiQB+/x/abc=' })
    expect(second!.id).toBe('own')
  })

  it('TOOL-H-09: the signature survives an OpenAI client and returns on the next Gemini request', () => {
    const answer = gToO(
      geminiResponse([{ functionCall: { name: 'f', args: { q: 1 } }, thoughtSignature: 'c2ln' }]),
    )
    const toolCall = answer.choices[0]!.message.tool_calls![0]!
    const next = encodeGeminiRequest(
      decodeOpenAIRequest(
        openAIChatRequestSchema.parse({
          model: 'm',
          messages: [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: null, tool_calls: [toolCall] },
            { role: 'tool', tool_call_id: toolCall.id, content: 'done' },
          ],
        }),
      ),
    )
    expect(next['contents']).toEqual([
      { role: 'user', parts: [{ text: 'q' }] },
      {
        role: 'model',
        parts: [{ functionCall: { name: 'f', args: { q: 1 } }, thoughtSignature: 'c2ln' }],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { result: 'done' } } }] },
    ])
  })

  it('TOOL-D-03: a renamed tool reaches the client under its own name', () => {
    const request = decodeOpenAIRequest(
      openAIChatRequestSchema.parse({
        model: 'm',
        messages: [{ role: 'user', content: 'q' }],
        tools: [{ type: 'function', function: { name: '1password' } }],
      }),
    )
    const response = decodeGeminiResponse(
      geminiResponse([{ functionCall: { name: '_1password', args: {} } }]),
      ids(),
      renamedGeminiTools(request),
    )
    expect(response.content).toEqual([
      { type: 'tool-call', id: 'gen_0', name: '1password', arguments: '{}' },
    ])
  })

  it('RESP-G-01: a blocked prompt is a content filter with a refusal', () => {
    const body = {
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'r1',
    }
    expect(decode(body)).toMatchObject({
      finishReason: { unified: 'content-filter', raw: 'PROHIBITED_CONTENT' },
      refusal: 'The prompt was blocked (PROHIBITED_CONTENT).',
    })
    expect(gToO(body).choices[0]).toMatchObject({
      finish_reason: 'content_filter',
      message: { refusal: 'The prompt was blocked (PROHIBITED_CONTENT).' },
    })
    expect(gToA(body).stop_reason).toBe('refusal')
  })

  it('ID-01: id and model come from responseId and modelVersion', () => {
    expect(decode(geminiResponse([{ text: 'x' }]))).toMatchObject({
      id: 'resp_upstream',
      model: 'gemini-2.5-flash',
    })
  })
})

describe('canonical response → generateContent', () => {
  it('RESP-G-01: thoughts first, then text, then function calls with their ids', () => {
    const body = oToG({
      ...chatCompletion('Sure.'),
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Sure.',
            reasoning_content: 'think',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
              { id: 'call_2', type: 'function', function: { name: 'g', arguments: '' } },
            ],
          },
        },
      ],
    })
    expect(body).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'think', thought: true },
              { text: 'Sure.' },
              { functionCall: { id: 'call_1', name: 'f', args: { a: 1 } } },
              { functionCall: { id: 'call_2', name: 'g', args: {} } },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 },
      modelVersion: 'alias',
      responseId: 'resp_x',
    })
  })

  it('USE-01: OpenAI usage splits reasoning into thoughts; total = prompt + candidates + thoughts', () => {
    const body = oToG({
      ...chatCompletion('x'),
      usage: {
        prompt_tokens: 100,
        completion_tokens: 30,
        total_tokens: 130,
        prompt_tokens_details: { cached_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 10 },
      },
    })
    expect(body.usageMetadata).toEqual({
      promptTokenCount: 100,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 10,
      cachedContentTokenCount: 60,
      totalTokenCount: 130,
    })
    const usage = body.usageMetadata
    expect(usage.totalTokenCount).toBe(
      usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
    )
  })

  it('USE-01: Anthropic usage counts cache reads and writes as prompt tokens', () => {
    const body = aToG(
      anthropicMessage([{ type: 'text', text: 'x' }], {
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 20,
          output_tokens: 7,
        },
      }),
    )
    expect(body.usageMetadata).toEqual({
      promptTokenCount: 130,
      candidatesTokenCount: 7,
      cachedContentTokenCount: 100,
      totalTokenCount: 137,
    })
  })

  it.each([
    ['stop', 'STOP'],
    ['length', 'MAX_TOKENS'],
    ['tool_calls', 'STOP'],
    ['content_filter', 'SAFETY'],
  ])('FIN: finish_reason %s becomes finishReason %s', (finishReason, expected) => {
    const body = oToG({
      ...chatCompletion('x'),
      choices: [
        { index: 0, finish_reason: finishReason, message: { role: 'assistant', content: 'x' } },
      ],
    })
    expect(body.candidates[0]!.finishReason).toBe(expected)
  })

  it.each([
    ['end_turn', 'STOP'],
    ['stop_sequence', 'STOP'],
    ['max_tokens', 'MAX_TOKENS'],
    ['tool_use', 'STOP'],
    ['refusal', 'SAFETY'],
  ])('FIN: stop_reason %s becomes finishReason %s', (stopReason, expected) => {
    expect(
      aToG(anthropicMessage([{ type: 'text', text: 'x' }], { stopReason })).candidates[0]!
        .finishReason,
    ).toBe(expected)
  })

  it('RR-03: Anthropic thinking is shown as a thought and carried, signed, in the next call’s thoughtSignature', () => {
    const body = aToG(
      anthropicMessage([
        { type: 'thinking', thinking: 'hmm', signature: 'EqQBCkYI' },
        { type: 'redacted_thinking', data: 'xyz' },
        { type: 'text', text: 'A' },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
      ]),
    )
    const parts = body.candidates[0]!.content.parts as Array<Record<string, unknown>>
    expect(parts.slice(0, 2)).toEqual([{ text: 'hmm', thought: true }, { text: 'A' }])
    expect(parts[2]).toMatchObject({ functionCall: { id: 'toolu_1', name: 'f', args: { a: 1 } } })
    expect(unpackCarriedThinking(String(parts[2]!['thoughtSignature']))).toEqual([
      { type: 'reasoning', text: 'hmm', signature: { protocol: 'anthropic', value: 'EqQBCkYI' } },
      { type: 'reasoning', text: '', redacted: { protocol: 'anthropic', value: 'xyz' } },
    ])
    // Outside the packed value, no part shows the signature.
    expect(JSON.stringify(parts.slice(0, 2))).not.toContain('EqQBCkYI')
  })

  it('RESP-G-01: G → canonical → G keeps parts, signatures, finish reason and usage', () => {
    const upstream = geminiResponse(
      [
        { text: 'plan', thought: true, thoughtSignature: 'c2lnMQ==' },
        { text: 'Done.' },
        { functionCall: { id: 'fc1', name: 'f', args: { a: 1 } }, thoughtSignature: 'c2lnMg==' },
      ],
      {
        usageMetadata: {
          promptTokenCount: 9,
          candidatesTokenCount: 5,
          thoughtsTokenCount: 185,
          totalTokenCount: 199,
        },
      },
    )
    const body = encodeGeminiResponse(decode(upstream), {
      responseId: 'resp_upstream',
      modelVersion: 'gemini-2.5-flash',
    })
    expect(body).toEqual(upstream)
    expect(
      encodeGeminiResponse(
        decode(geminiResponse([{ text: 'x' }], { finishReason: 'RECITATION' })),
        meta,
      ).candidates[0]!.finishReason,
    ).toBe('RECITATION')
  })
})
