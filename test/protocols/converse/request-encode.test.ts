import { describe, expect, it } from 'vitest'
import type { ChatRequest, Message } from '../../../src/canonical/types'
import { isGatewayError } from '../../../src/errors'
import { resolveModelProfile } from '../../../src/models/match-profile'
import type { ModelTarget } from '../../../src/models/model-target'
import { encodeConverseRequest } from '../../../src/protocols/converse/request-encode'

function target(model: string): ModelTarget {
  return { profile: resolveModelProfile(model), adjustments: [] }
}

function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'amazon.nova-pro-v1:0', messages, stream: false, ...extra }
}

const png = 'iVBORw0KGgo='

describe('Converse request encoding', () => {
  it('encodes every content kind: system, text, image, document, tool use and results, signed and redacted reasoning', () => {
    const body = encodeConverseRequest(
      request(
        [
          {
            role: 'system',
            content: [{ type: 'text', text: 'Be terse.', cacheControl: { type: 'ephemeral' } }],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather?' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: png } },
              {
                type: 'file',
                mediaType: 'application/pdf',
                source: { kind: 'base64', data: 'JVBERi0=' },
                filename: 'report.v2.pdf',
              },
              { type: 'file', mediaType: 'text/plain', source: { kind: 'text', text: 'notes ✓' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Let me look.' },
              {
                type: 'reasoning',
                text: 'Need a tool.',
                signature: { protocol: 'converse', value: 'sig' },
              },
              { type: 'reasoning', text: '', redacted: { protocol: 'converse', value: 'UkVE' } },
              {
                type: 'reasoning',
                text: 'Anthropic thinking',
                signature: { protocol: 'anthropic', value: 'x' },
              },
              {
                type: 'tool-call',
                id: 'call.1:a',
                name: 'get_weather',
                arguments: '{"city":"Paris"}',
              },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'call.1:a',
                toolName: 'get_weather',
                content: [{ type: 'text', text: '18°C' }],
                isError: true,
              },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
        ],
        {
          maxOutputTokens: 512,
          temperature: 1.5,
          topP: 0.9,
          stopSequences: ['END'],
          tools: [{ name: 'get_weather', description: 'Weather', inputSchema: { type: 'object' } }],
          toolChoice: { type: 'required' },
        },
      ),
      target('amazon.nova-pro-v1:0'),
    )
    expect(body).toEqual({
      system: [{ text: 'Be terse.' }, { cachePoint: { type: 'default' } }],
      messages: [
        {
          role: 'user',
          content: [
            { text: 'Weather?' },
            { image: { format: 'png', source: { bytes: png } } },
            { document: { format: 'pdf', name: 'report v2', source: { bytes: 'JVBERi0=' } } },
            { document: { format: 'txt', name: 'document', source: { bytes: 'bm90ZXMg4pyT' } } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Need a tool.', signature: 'sig' } } },
            { reasoningContent: { redactedContent: 'UkVE' } },
            { text: 'Let me look.' },
            { toolUse: { toolUseId: 'call_1_a', name: 'get_weather', input: { city: 'Paris' } } },
          ],
        },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'call_1_a', content: [{ text: '18°C' }], status: 'error' } },
            { text: 'Thanks' },
          ],
        },
      ],
      inferenceConfig: { maxTokens: 512, temperature: 1, topP: 0.9, stopSequences: ['END'] },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'Weather',
              inputSchema: { json: { type: 'object' } },
            },
          },
        ],
        toolChoice: { any: {} },
      },
    })
  })

  it('refuses an image given by URL with a clear 400', () => {
    const call = () =>
      encodeConverseRequest(
        request([
          {
            role: 'user',
            content: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }],
          },
        ]),
        target('amazon.nova-pro-v1:0'),
      )
    expect(call).toThrow(/takes images as data, not URLs/)
    try {
      call()
    } catch (error) {
      expect(isGatewayError(error) && error.status).toBe(400)
    }
  })

  it('refuses an image format Converse does not take, and images to a text-only model', () => {
    const image = (mediaType: string): Message => ({
      role: 'user',
      content: [{ type: 'image', source: { kind: 'base64', mediaType, data: png } }],
    })
    expect(() =>
      encodeConverseRequest(request([image('image/heic')]), target('amazon.nova-pro-v1:0')),
    ).toThrow(/PNG, JPEG, GIF and WebP/)
    expect(() =>
      encodeConverseRequest(request([image('image/png')]), target('amazon.nova-micro-v1:0')),
    ).toThrow(/does not take image input/)
  })

  it('drops blank text, merges turns of one role, and starts with a user turn', () => {
    const fitted = target('us.meta.llama3-3-70b-instruct-v1:0')
    const body = encodeConverseRequest(
      request([
        { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
        { role: 'user', content: [{ type: 'text', text: '  \n' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'user', content: [{ type: 'text', text: 'there' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Answer: ' }] },
      ]),
      fitted,
    )
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ text: '.' }] },
      { role: 'assistant', content: [{ text: 'Hello!' }] },
      { role: 'user', content: [{ text: 'Hi' }, { text: 'there' }] },
      { role: 'assistant', content: [{ text: 'Answer:' }] },
    ])
    expect(fitted.adjustments).toContainEqual(
      expect.objectContaining({ field: 'messages[0]', change: 'set' }),
    )
  })

  it('makes tool names and ids Converse-safe, and keeps tools declared for a history with tool calls', () => {
    const fitted = target('amazon.nova-lite-v1:0')
    const body = encodeConverseRequest(
      request(
        [
          { role: 'user', content: [{ type: 'text', text: 'Go' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool-call', id: 'x'.repeat(80), name: 'mcp.search', arguments: '' }],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'x'.repeat(80),
                toolName: 'mcp.search',
                content: [],
              },
            ],
          },
        ],
        {
          toolChoice: { type: 'none' },
          tools: [{ name: 'mcp.search', inputSchema: { type: 'object' } }],
        },
      ),
      fitted,
    )
    const messages = body['messages'] as Array<{ content: Array<Record<string, any>> }>
    const use = messages[1]!.content[0]!['toolUse']
    const result = messages[2]!.content[0]!['toolResult']
    expect(use.name).toBe('mcp_search')
    expect(use.input).toEqual({})
    expect(use.toolUseId).toHaveLength(64)
    expect(use.toolUseId).toMatch(/^[a-zA-Z0-9_-]+$/)
    expect(result).toEqual({ toolUseId: use.toolUseId, content: [] })
    expect(body['toolConfig']).toEqual({
      tools: [{ toolSpec: { name: 'mcp_search', inputSchema: { json: { type: 'object' } } } }],
    })
    expect(fitted.adjustments).toContainEqual(
      expect.objectContaining({ field: 'toolConfig.toolChoice', change: 'dropped' }),
    )
  })

  it('declares a minimal spec for a tool the history calls but the request no longer declares', () => {
    const body = encodeConverseRequest(
      request([
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 't1', name: 'old_tool', arguments: '{}' }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 't1',
              toolName: 'old_tool',
              content: [{ type: 'text', text: 'ok' }],
            },
          ],
        },
      ]),
      target('amazon.nova-pro-v1:0'),
    )
    expect(body['toolConfig']).toEqual({
      tools: [{ toolSpec: { name: 'old_tool', inputSchema: { json: { type: 'object' } } } }],
    })
  })

  it('maps a forced tool choice to auto for a model that refuses it, and refuses tools to a model without tool use', () => {
    const tools = [{ name: 'f', inputSchema: { type: 'object' } }]
    const llama = target('us.meta.llama4-maverick-17b-instruct-v1:0')
    const body = encodeConverseRequest(
      request([{ role: 'user', content: [{ type: 'text', text: 'x' }] }], {
        tools,
        toolChoice: { type: 'tool', name: 'f' },
      }),
      llama,
    )
    expect((body['toolConfig'] as Record<string, unknown>)['toolChoice']).toEqual({ auto: {} })
    expect(() =>
      encodeConverseRequest(
        request([{ role: 'user', content: [{ type: 'text', text: 'x' }] }], { tools }),
        target('us.deepseek.r1-v1:0'),
      ),
    ).toThrow(/does not take tools/)
  })

  it('asks Nova 2 for reasoning with its effort, and drops what a model has no field for', () => {
    const nova2 = target('global.amazon.nova-2-lite-v1:0')
    const body = encodeConverseRequest(
      request([{ role: 'user', content: [{ type: 'text', text: 'x' }] }], {
        reasoning: { budgetTokens: 20_000 },
      }),
      nova2,
    )
    expect(body['additionalModelRequestFields']).toEqual({
      reasoningConfig: { type: 'enabled', maxReasoningEffort: 'high' },
    })
    const llama = target('meta.llama3-1-70b-instruct-v1:0')
    const plain = encodeConverseRequest(
      request([{ role: 'user', content: [{ type: 'text', text: 'x' }] }], {
        reasoning: { effort: 'high' },
        topK: 40,
        seed: 7,
      }),
      llama,
    )
    expect(plain['additionalModelRequestFields']).toBeUndefined()
    expect(llama.adjustments.map((adjustment) => adjustment.field)).toEqual([
      'seed',
      'top_k',
      'additionalModelRequestFields',
    ])
    const nova = encodeConverseRequest(
      request([{ role: 'user', content: [{ type: 'text', text: 'x' }] }], { topK: 20 }),
      target('amazon.nova-lite-v1:0'),
    )
    expect(nova['additionalModelRequestFields']).toEqual({ inferenceConfig: { topK: 20 } })
  })

  it('drops cache marks for a model without prompt caching, and sends the JSON request as an instruction', () => {
    const llama = target('meta.llama3-3-70b-instruct-v1:0')
    const body = encodeConverseRequest(
      request(
        [
          {
            role: 'user',
            content: [{ type: 'text', text: 'Data', cacheControl: { type: 'ephemeral' } }],
          },
        ],
        { responseFormat: { type: 'json', schema: { type: 'object' } } },
      ),
      llama,
    )
    expect(body['messages']).toEqual([{ role: 'user', content: [{ text: 'Data' }] }])
    expect((body['system'] as Array<{ text: string }>)[0]!.text).toMatch(/single JSON object/)
    expect(llama.adjustments).toContainEqual(
      expect.objectContaining({ field: 'cachePoint', change: 'dropped' }),
    )
  })

  it('caps maxTokens at the model’s maximum output', () => {
    const micro = target('amazon.nova-micro-v1:0')
    const body = encodeConverseRequest(
      request([{ role: 'user', content: [{ type: 'text', text: 'x' }] }], {
        maxOutputTokens: 50_000,
      }),
      micro,
    )
    expect(body['inferenceConfig']).toEqual({ maxTokens: 10_000 })
  })
})
