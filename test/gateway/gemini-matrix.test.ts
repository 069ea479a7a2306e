import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI, Type } from '@google/genai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicMessage,
} from '../helpers/anthropic-upstream'
import { buildGateway, fetchThrough, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import {
  gatewayHandler,
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
  geminiResponse,
  geminiTextFrames,
} from '../helpers/gemini-upstream'
import {
  chatCompletion,
  chatStreamFrames,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'

const openai = createMockUpstream()
const geminiCalls: UpstreamCallRecord[] = []
const anthropicCalls: UpstreamCallRecord[] = []
const defaultGemini: UpstreamBehaviour = {
  kind: 'json',
  body: geminiResponse([{ text: 'Hi from Gemini' }]),
}
let geminiBehaviour: UpstreamBehaviour = defaultGemini
let anthropicBehaviour: UpstreamBehaviour = {
  kind: 'json',
  body: anthropicMessage([{ type: 'text', text: 'Hi from Claude' }]),
}
let current: ReturnType<typeof build>
openai.server.use(
  ...geminiHandlers({ calls: geminiCalls, behaviour: () => geminiBehaviour }),
  ...anthropicHandlers({ calls: anthropicCalls, behaviour: () => anthropicBehaviour }),
  gatewayHandler(gatewayUrl, () => current.gateway),
)
beforeAll(() => openai.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => openai.server.close())
afterEach(() => {
  geminiBehaviour = defaultGemini
})

function build() {
  return buildGateway({
    groupIdRouting: true,
    groups: [
      {
        id: 'gem',
        protocol: 'gemini',
        models: ['gemini-2.5-flash', { name: 'flash', upstreamModel: 'gemini-2.5-flash' }],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: ['claude-sonnet'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
    ],
    keys: [{ key: keys.main }, { key: keys.limited, quota: { tokens: 30 } }],
  })
}

function genai(apiKey: string = keys.main) {
  current ??= build()
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gatewayUrl } })
}
function fresh() {
  current = build()
  return current
}
const lastGemini = () => geminiCalls.at(-1)!
const anthropicClient = (handler: GatewayHandler) =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetchThrough(handler),
    maxRetries: 0,
  })
const weatherTool = {
  functionDeclarations: [
    {
      name: 'get_weather',
      description: 'Weather by city',
      parameters: {
        type: Type.OBJECT,
        properties: { city: { type: Type.STRING } },
        required: ['city'],
      },
    },
  ],
}

describe('Gemini client × gemini group (passthrough)', () => {
  it('relays generateContent with a system instruction, body untouched, with the group key', async () => {
    const { meter } = fresh()
    const response = await genai().models.generateContent({
      model: 'flash',
      contents: 'Hello',
      config: { systemInstruction: 'Be brief.' },
    })
    expect(response.text).toBe('Hi from Gemini')
    const call = lastGemini()
    expect(call.url).toBe(`${geminiBaseUrl}/v1beta/models/gemini-2.5-flash:generateContent`)
    expect(call.headers.get('x-goog-api-key')).toBe(geminiApiKey)
    expect(JSON.parse(call.body)).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    })
    expect(meter.records().at(-1)?.usage).toEqual({
      inputTokens: 20,
      outputTokens: 6,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 26,
    })
  })

  it('streams with generateContentStream over any SSE delimiter', async () => {
    for (const delimiter of ['\n\n', '\r\n\r\n', '\r\r']) {
      const { meter } = fresh()
      geminiBehaviour = { kind: 'sse', frames: geminiTextFrames(['Hel', 'lo'], { delimiter }) }
      let text = ''
      for await (const chunk of await genai().models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'Hi',
      }))
        text += chunk.text ?? ''
      expect(text).toBe('Hello')
      expect(lastGemini().url).toContain(':streamGenerateContent?alt=sse')
      expect(meter.records().at(-1)).toMatchObject({
        outcome: 'ok',
        usage: { inputTokens: 12, outputTokens: 2 },
      })
    }
  })

  it('answers function calls and carries a functionResponse round trip', async () => {
    fresh()
    geminiBehaviour = {
      kind: 'json',
      body: geminiResponse([
        {
          functionCall: { name: 'get_weather', args: { city: 'Paris' } },
          thoughtSignature: 'c2lnbmF0dXJl',
        },
      ]),
    }
    const response = await genai().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather?',
      config: { tools: [weatherTool] },
    })
    expect(response.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }])
    geminiBehaviour = defaultGemini
    await genai().models.generateContent({
      model: 'gemini-2.5-flash',
      config: { tools: [weatherTool] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: 'get_weather', args: { city: 'Paris' } },
              thoughtSignature: 'c2lnbmF0dXJl',
            },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }],
        },
      ],
    })
    expect(JSON.parse(lastGemini().body).contents[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }],
    })
  })

  it('forwards countTokens and lists models in Google shape, paged', async () => {
    fresh()
    expect(
      (await genai().models.countTokens({ model: 'gemini-2.5-flash', contents: 'count me' }))
        .totalTokens,
    ).toBe(17)
    const names: string[] = []
    for await (const model of await genai().models.list({ config: { pageSize: 2 } }))
      names.push(model.name ?? '')
    expect(names).toEqual([
      'models/gemini-2.5-flash',
      'models/flash',
      'models/gpt-4o-mini',
      'models/claude-sonnet',
      'models/gem/gemini-2.5-flash',
      'models/gem/flash',
      'models/gpt/gpt-4o-mini',
      'models/claude/claude-sonnet',
    ])
    const model = await genai().models.get({ model: 'flash' })
    expect(model).toMatchObject({ name: 'models/flash', displayName: 'flash' })
  })

  it('pins a group with a raw slash or %2F in the path', async () => {
    const handler = fresh().gateway
    for (const path of ['gem/flash', 'gem%2Fflash']) {
      const response = await handler(
        new Request(`${gatewayUrl}/v1beta/models/${path}:generateContent?key=${keys.main}`, {
          method: 'POST',
          body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }),
        }),
      )
      expect(response.status).toBe(200)
    }
  })
})

describe('Gemini client errors', () => {
  it('answers a bad key in Google shape', async () => {
    fresh()
    const error = await genai('sk-nope-0123456789abcdefghij')
      .models.generateContent({ model: 'flash', contents: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 401 })
    expect(String((error as Error).message)).toContain('UNAUTHENTICATED')
  })

  it('answers an unknown model with 404 NOT_FOUND', async () => {
    fresh()
    const error = await genai()
      .models.generateContent({ model: 'nope', contents: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 404 })
    expect(String((error as Error).message)).toContain('NOT_FOUND')
  })

  it('answers an exhausted quota with 429 RESOURCE_EXHAUSTED', async () => {
    fresh()
    geminiBehaviour = {
      kind: 'json',
      body: geminiResponse([{ text: 'ok' }], {
        usage: { promptTokenCount: 25, candidatesTokenCount: 10, totalTokenCount: 35 },
      }),
    }
    await genai(keys.limited).models.generateContent({ model: 'flash', contents: 'x' })
    const error = await genai(keys.limited)
      .models.generateContent({ model: 'flash', contents: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 429 })
    expect(String((error as Error).message)).toContain('RESOURCE_EXHAUSTED')
  })

  it('ERR-S-G: throws after the partial text when the upstream fails mid-stream', async () => {
    const { meter } = fresh()
    geminiBehaviour = {
      kind: 'sse',
      frames: geminiTextFrames(['partial ', 'text'], { failAfter: true }),
    }
    let text = ''
    await expect(async () => {
      for await (const chunk of await genai().models.generateContentStream({
        model: 'flash',
        contents: 'x',
      }))
        text += chunk.text ?? ''
    }).rejects.toThrow(/overloaded|UNAVAILABLE/)
    expect(text).toBe('partial text')
    expect(meter.records().at(-1)?.outcome).toBe('error')
  })

  it('answers countTokens on an openai group with 404 NOT_FOUND', async () => {
    fresh()
    const error = await genai()
      .models.countTokens({ model: 'gpt-4o-mini', contents: 'x' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 404 })
  })

  it('masks a ?key= credential in every log', async () => {
    const { events, gateway } = fresh()
    await gateway(
      new Request(`${gatewayUrl}/v1beta/models/flash:generateContent?key=${keys.main}`, {
        method: 'POST',
        body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }),
      }),
    )
    expect(JSON.stringify(events)).not.toContain(keys.main)
    expect(events.at(-1)).toMatchObject({ key: `sk-…${keys.main.slice(-4)}`, status: 200 })
  })
})

describe('Gemini client × openai and anthropic groups (translation)', () => {
  it('translates generateContent to an openai group and back', async () => {
    const { meter } = fresh()
    openai.answer({
      kind: 'json',
      body: chatCompletion('From GPT', {
        prompt_tokens: 9,
        completion_tokens: 3,
        total_tokens: 12,
      }),
    })
    const response = await genai().models.generateContent({
      model: 'gpt-4o-mini',
      contents: 'Hello',
      config: { systemInstruction: 'Be brief.', temperature: 0.4 },
    })
    expect(response.text).toBe('From GPT')
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 9,
      candidatesTokenCount: 3,
      totalTokenCount: 12,
    })
    expect(openai.lastBody()).toMatchObject({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 0.4,
    })
    expect(meter.records().at(-1)?.usage?.totalTokens).toBe(12)
  })

  it('streams from an openai group, with a streamed tool call', async () => {
    fresh()
    openai.answer({
      kind: 'sse',
      frames: chatStreamFrames(['Hi', ' there'], { includeUsage: true }),
    })
    let text = ''
    for await (const chunk of await genai().models.generateContentStream({
      model: 'gpt-4o-mini',
      contents: 'Hi',
    }))
      text += chunk.text ?? ''
    expect(text).toBe('Hi there')
  })

  it('translates to an anthropic group, stream and countTokens included', async () => {
    fresh()
    const response = await genai().models.generateContent({
      model: 'claude-sonnet',
      contents: 'Hello',
    })
    expect(response.text).toBe('Hi from Claude')
    expect(JSON.parse(anthropicCalls.at(-1)!.body)).toMatchObject({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    })
    const counted = await genai().models.countTokens({
      model: 'claude-sonnet',
      contents: 'count me',
    })
    expect(counted.totalTokens).toBe(42)
    expect(anthropicCalls.at(-1)!.url).toBe(`${anthropicBaseUrl}/v1/messages/count_tokens`)
  })
})

describe('openai and anthropic clients × gemini group (translation)', () => {
  it('answers the openai SDK from Gemini, non-stream and stream', async () => {
    const { gateway } = fresh()
    const completion = await openAIClient(gateway).chat.completions.create({
      model: 'flash',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(completion.choices[0]?.message.content).toBe('Hi from Gemini')
    expect(completion.usage).toMatchObject({
      prompt_tokens: 20,
      completion_tokens: 6,
      total_tokens: 26,
    })
    geminiBehaviour = { kind: 'sse', frames: geminiTextFrames(['a', 'b', 'c']) }
    let text = ''
    for await (const chunk of await openAIClient(gateway).chat.completions.create({
      model: 'flash',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    }))
      text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('abc')
  })

  it('maps a Gemini function call (STOP) to tool_calls for the openai SDK and keeps its thought signature for the round trip', async () => {
    const { gateway } = fresh()
    geminiBehaviour = {
      kind: 'json',
      body: geminiResponse([
        {
          functionCall: { name: 'get_weather', args: { city: 'Rome' } },
          thoughtSignature: 'c2lnLTE=',
        },
      ]),
    }
    const completion = await openAIClient(gateway).chat.completions.create({
      model: 'flash',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
    })
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls')
    const call = completion.choices[0]?.message.tool_calls?.[0]
    if (call?.type !== 'function') throw new Error('expected a function call')
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Rome' })
    geminiBehaviour = defaultGemini
    await openAIClient(gateway).chat.completions.create({
      model: 'flash',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temp":20}' },
      ],
    })
    const sent = JSON.parse(lastGemini().body)
    expect(sent.contents[1].parts[0]).toMatchObject({
      functionCall: { name: 'get_weather', args: { city: 'Rome' } },
      thoughtSignature: 'c2lnLTE=',
    })
    expect(sent.contents[2].parts[0]).toMatchObject({
      functionResponse: { name: 'get_weather', response: { temp: 20 } },
    })
  })

  it('answers count_tokens from the Anthropic SDK on a gemini group with 404 not_found_error', async () => {
    const { gateway } = fresh()
    const error = await anthropicClient(gateway)
      .messages.countTokens({ model: 'flash', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
  })

  it('answers the Anthropic SDK from Gemini, stream included', async () => {
    const { gateway } = fresh()
    const message = await anthropicClient(gateway).messages.create({
      model: 'flash',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(message.content).toEqual([{ type: 'text', text: 'Hi from Gemini' }])
    geminiBehaviour = { kind: 'sse', frames: geminiTextFrames(['x', 'y']) }
    const final = await anthropicClient(gateway)
      .messages.stream({
        model: 'flash',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .finalMessage()
    expect(final.content).toMatchObject([{ type: 'text', text: 'xy' }])
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 2 })
  })

  it('gives the openai SDK an error event after partial text when Gemini fails mid-stream', async () => {
    const { gateway, meter } = fresh()
    geminiBehaviour = {
      kind: 'sse',
      frames: geminiTextFrames(['partial ', 'text'], { failAfter: true }),
    }
    let text = ''
    await expect(async () => {
      for await (const chunk of await openAIClient(gateway).chat.completions.create({
        model: 'flash',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      }))
        text += chunk.choices[0]?.delta.content ?? ''
    }).rejects.toThrow(/overloaded/)
    expect(text).toBe('partial text')
    expect(meter.records().at(-1)?.outcome).toBe('error')
  })
})

describe('tool names and ids across Gemini', () => {
  it('TOOL-D-03: a tool name Gemini rejects is renamed on the way and restored for the client, streams included', async () => {
    const { gateway } = fresh()
    const tool = {
      type: 'function' as const,
      function: { name: '1password.lookup', parameters: { type: 'object', properties: {} } },
    }
    geminiBehaviour = {
      kind: 'json',
      body: geminiResponse([{ functionCall: { name: '_1password.lookup', args: {} } }]),
    }
    const completion = await openAIClient(gateway).chat.completions.create({
      model: 'flash',
      messages: [{ role: 'user', content: 'x' }],
      tools: [tool],
    })
    expect(JSON.parse(lastGemini().body).tools[0].functionDeclarations[0].name).toBe(
      '_1password.lookup',
    )
    const call = completion.choices[0]?.message.tool_calls?.[0]
    expect(call?.type === 'function' && call.function.name).toBe('1password.lookup')
    geminiBehaviour = {
      kind: 'sse',
      frames: [
        `data: ${JSON.stringify(geminiResponse([{ functionCall: { name: '_1password.lookup', args: {} } }]))}\n\n`,
      ],
    }
    const final = await openAIClient(gateway)
      .chat.completions.stream({
        model: 'flash',
        messages: [{ role: 'user', content: 'x' }],
        tools: [tool],
      })
      .finalChatCompletion()
    const streamed = final.choices[0]?.message.tool_calls?.[0]
    expect(streamed?.type === 'function' && streamed.function.name).toBe('1password.lookup')
  })

  it("keeps tool-call ids within OpenAI's 40 characters when signed Gemini history goes to an openai group", async () => {
    fresh()
    openai.answer({ kind: 'json', body: chatCompletion('ok') })
    await genai().models.generateContent({
      model: 'gpt-4o-mini',
      config: { tools: [weatherTool] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: 'get_weather', args: { city: 'Paris' } },
              thoughtSignature: 'a'.repeat(200),
            },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }],
        },
      ],
    })
    const messages = (
      openai.lastBody() as {
        messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>
      }
    ).messages
    const id = messages[1]?.tool_calls?.[0]?.id ?? ''
    expect(id.length).toBeLessThanOrEqual(40)
    expect(messages[2]?.tool_call_id).toBe(id)
  })
})

describe('Gemini routes', () => {
  it('answers an unknown /v1beta path with 404 in Google shape', async () => {
    const { gateway } = fresh()
    const response = await gateway(
      new Request(`${gatewayUrl}/v1beta/models/flash:predict?key=${keys.main}`, {
        method: 'POST',
        body: '{}',
      }),
    )
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } })
  })

  it('answers streamGenerateContent without alt=sse with 400 INVALID_ARGUMENT', async () => {
    const { gateway } = fresh()
    const response = await gateway(
      new Request(`${gatewayUrl}/v1beta/models/flash:streamGenerateContent?key=${keys.main}`, {
        method: 'POST',
        body: JSON.stringify({ contents: [{ parts: [{ text: 'x' }] }] }),
      }),
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT' },
    })
  })
})

describe('thought signatures through an Anthropic client', () => {
  it('TOOL-H-09: a Gemini thought signature survives a tool_use round trip through the Anthropic SDK', async () => {
    const { gateway } = fresh()
    geminiBehaviour = {
      kind: 'json',
      body: geminiResponse([
        {
          functionCall: { name: 'get_weather', args: { city: 'Oslo' } },
          thoughtSignature: 'U2lnbmVkK2J5L0dlbWluaT0=',
        },
      ]),
    }
    const message = await anthropicClient(gateway).messages.create({
      model: 'flash',
      max_tokens: 50,
      tools: [
        {
          name: 'get_weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      messages: [{ role: 'user', content: 'Weather?' }],
    })
    const use = message.content.find((block) => block.type === 'tool_use')
    if (use?.type !== 'tool_use') throw new Error('expected a tool_use block')
    expect(use.id).toMatch(/^[a-zA-Z0-9_-]+$/)
    geminiBehaviour = defaultGemini
    await anthropicClient(gateway).messages.create({
      model: 'flash',
      max_tokens: 50,
      tools: [
        {
          name: 'get_weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [use] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'cold' }] },
      ],
    })
    const sent = JSON.parse(lastGemini().body)
    expect(sent.contents[1].parts[0]).toMatchObject({
      functionCall: { name: 'get_weather', args: { city: 'Oslo' } },
      thoughtSignature: 'U2lnbmVkK2J5L0dlbWluaT0=',
    })
    expect(sent.contents[2].parts[0]).toMatchObject({
      functionResponse: { name: 'get_weather', response: { result: 'cold' } },
    })
  })
})
