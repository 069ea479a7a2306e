import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI, Type } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicMessage,
  anthropicTextFrames,
} from '../helpers/anthropic-upstream'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import {
  gatewayHandler,
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
  geminiResponse,
  geminiTextFrames,
} from '../helpers/gemini-upstream'
import {
  chatStreamFrames,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'

type Family = 'openai' | 'anthropic' | 'gemini'
type ToolCall = { name: string; args: unknown }

const openaiUpstream = createMockUpstream()
const calls: Record<Family, UpstreamCallRecord[]> = {
  openai: openaiUpstream.calls,
  anthropic: [],
  gemini: [],
}
const behaviour: Record<Family, UpstreamBehaviour> = {
  openai: { kind: 'json', body: {} },
  anthropic: { kind: 'json', body: {} },
  gemini: { kind: 'json', body: {} },
}
let handler: GatewayHandler
let meter: ReturnType<typeof buildGateway>['meter']
openaiUpstream.server.use(
  ...anthropicHandlers({ calls: calls.anthropic, behaviour: () => behaviour.anthropic }),
  ...geminiHandlers({ calls: calls.gemini, behaviour: () => behaviour.gemini }),
  gatewayHandler(gatewayUrl, () => handler),
)
beforeAll(() => {
  openaiUpstream.server.listen({ onUnhandledRequest: 'error' })
  const built = buildGateway({
    groups: [
      {
        id: 'o',
        protocol: 'openai',
        models: ['openai-model'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'a',
        protocol: 'anthropic',
        models: ['anthropic-model'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'g',
        protocol: 'gemini',
        models: ['gemini-model'],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
    ],
    keys: [{ key: keys.main }],
  })
  handler = built.gateway
  meter = built.meter
})

/** What each upstream reports for its text answer and its text stream (the fixtures' figures). */
const reportedUsage: Record<
  Family,
  Record<
    'text' | 'stream',
    { inputTokens: number; outputTokens: number; cachedInputTokens: number; totalTokens: number }
  >
> = {
  openai: {
    text: { inputTokens: 5, outputTokens: 1, cachedInputTokens: 0, totalTokens: 6 },
    stream: { inputTokens: 21, outputTokens: 2, cachedInputTokens: 0, totalTokens: 23 },
  },
  anthropic: {
    text: { inputTokens: 35, outputTokens: 12, cachedInputTokens: 10, totalTokens: 47 },
    stream: { inputTokens: 42, outputTokens: 2, cachedInputTokens: 7, totalTokens: 44 },
  },
  gemini: {
    text: { inputTokens: 20, outputTokens: 6, cachedInputTokens: 0, totalTokens: 26 },
    stream: { inputTokens: 12, outputTokens: 2, cachedInputTokens: 0, totalTokens: 14 },
  },
}
afterAll(() => openaiUpstream.server.close())

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-m', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
const anthropicFrame = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

/** What each upstream family answers, in its own wire format. */
const upstreamAnswers: Record<
  Family,
  Record<'text' | 'stream' | 'tool' | 'streamTool' | 'error' | 'failing', UpstreamBehaviour>
> = {
  openai: {
    text: {
      kind: 'json',
      body: {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Paris' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      },
    },
    stream: { kind: 'sse', frames: chatStreamFrames(['Par', 'is'], { includeUsage: true }) },
    tool: {
      kind: 'json',
      body: {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      },
    },
    streamTool: {
      kind: 'sse',
      frames: [
        chunk({ role: 'assistant', content: null }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '' },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    },
    error: {
      kind: 'error',
      status: 429,
      body: {
        error: { message: 'Slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
    },
    failing: { kind: 'sse', frames: chatStreamFrames(['Par', 'is', ' never']), failAfter: 3 },
  },
  anthropic: {
    text: { kind: 'json', body: anthropicMessage([{ type: 'text', text: 'Paris' }]) },
    stream: { kind: 'sse', frames: anthropicTextFrames(['Par', 'is']) },
    tool: {
      kind: 'json',
      body: anthropicMessage(
        [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
        { stopReason: 'tool_use' },
      ),
    },
    streamTool: {
      kind: 'sse',
      frames: [
        anthropicFrame('message_start', {
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'm',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 5, output_tokens: 1 },
          },
        }),
        anthropicFrame('content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
        }),
        anthropicFrame('content_block_delta', {
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"city":' },
        }),
        anthropicFrame('content_block_delta', {
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '"Paris"}' },
        }),
        anthropicFrame('content_block_stop', { index: 0 }),
        anthropicFrame('message_delta', {
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 4 },
        }),
        anthropicFrame('message_stop', {}),
      ],
    },
    error: {
      kind: 'error',
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } },
    },
    failing: { kind: 'sse', frames: anthropicTextFrames(['Par', 'is'], { failAfterText: true }) },
  },
  gemini: {
    text: { kind: 'json', body: geminiResponse([{ text: 'Paris' }]) },
    stream: { kind: 'sse', frames: geminiTextFrames(['Par', 'is']) },
    tool: {
      kind: 'json',
      body: geminiResponse([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]),
    },
    streamTool: {
      kind: 'sse',
      frames: [
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' }] }, index: 0 }], modelVersion: 'g' })}\n\n`,
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 4, totalTokenCount: 9 }, modelVersion: 'g' })}\n\n`,
      ],
    },
    error: {
      kind: 'error',
      status: 429,
      body: { error: { code: 429, message: 'Slow down', status: 'RESOURCE_EXHAUSTED' } },
    },
    failing: { kind: 'sse', frames: geminiTextFrames(['Par', 'is'], { failAfter: true }) },
  },
}

/** How each client SDK asks, and what it gets back. */
type Client = {
  text(model: string): Promise<string>
  stream(model: string): Promise<string>
  tool(model: string): Promise<ToolCall>
  streamTool(model: string): Promise<ToolCall>
  toolResult(model: string): Promise<string>
  status(model: string): Promise<number>
  /** The text received before the stream failed, and the error. */
  failing(model: string): Promise<{ text: string; error: unknown }>
}

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
}
const openaiSdk = () =>
  new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(handler),
    maxRetries: 0,
  })
const anthropicSdk = () =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetchThrough(handler),
    maxRetries: 0,
  })
const genaiSdk = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })
const anthropicTool = {
  name: 'get_weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
}
const geminiTool = {
  functionDeclarations: [
    {
      name: 'get_weather',
      parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } },
    },
  ],
}

async function failure<T>(run: () => Promise<T>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  return undefined
}

const clients: Record<Family, Client> = {
  openai: {
    text: async (model) =>
      (
        await openaiSdk().chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Capital?' }],
        })
      ).choices[0]?.message.content ?? '',
    stream: async (model) => {
      let text = ''
      for await (const part of await openaiSdk().chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Capital?' }],
        stream: true,
      }))
        text += part.choices[0]?.delta.content ?? ''
      return text
    },
    tool: async (model) => {
      const call = (
        await openaiSdk().chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: [weather],
        })
      ).choices[0]?.message.tool_calls?.[0]
      return call?.type === 'function'
        ? { name: call.function.name, args: JSON.parse(call.function.arguments) }
        : { name: '', args: null }
    },
    streamTool: async (model) => {
      const final = await openaiSdk()
        .chat.completions.stream({
          model,
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: [weather],
        })
        .finalChatCompletion()
      const call = final.choices[0]?.message.tool_calls?.[0]
      return call?.type === 'function'
        ? { name: call.function.name, args: JSON.parse(call.function.arguments) }
        : { name: '', args: null }
    },
    toolResult: async (model) =>
      (
        await openaiSdk().chat.completions.create({
          model,
          tools: [weather],
          messages: [
            { role: 'user', content: 'Weather?' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_9',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                },
              ],
            },
            { role: 'tool', tool_call_id: 'call_9', content: 'sunny' },
          ],
        })
      ).choices[0]?.message.content ?? '',
    status: async (model) =>
      (
        (await failure(() =>
          openaiSdk().chat.completions.create({
            model,
            messages: [{ role: 'user', content: 'x' }],
          }),
        )) as { status: number }
      ).status,
    failing: async (model) => {
      let text = ''
      const error = await failure(async () => {
        for await (const part of await openaiSdk().chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'x' }],
          stream: true,
        }))
          text += part.choices[0]?.delta.content ?? ''
      })
      return { text, error }
    },
  },
  anthropic: {
    text: async (model) => {
      const message = await anthropicSdk().messages.create({
        model,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Capital?' }],
      })
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    },
    stream: async (model) => {
      const message = await anthropicSdk()
        .messages.stream({
          model,
          max_tokens: 50,
          messages: [{ role: 'user', content: 'Capital?' }],
        })
        .finalMessage()
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    },
    tool: async (model) => {
      const block = (
        await anthropicSdk().messages.create({
          model,
          max_tokens: 50,
          tools: [anthropicTool],
          messages: [{ role: 'user', content: 'Weather?' }],
        })
      ).content.find((item) => item.type === 'tool_use')
      return block?.type === 'tool_use'
        ? { name: block.name, args: block.input }
        : { name: '', args: null }
    },
    streamTool: async (model) => {
      const block = (
        await anthropicSdk()
          .messages.stream({
            model,
            max_tokens: 50,
            tools: [anthropicTool],
            messages: [{ role: 'user', content: 'Weather?' }],
          })
          .finalMessage()
      ).content.find((item) => item.type === 'tool_use')
      return block?.type === 'tool_use'
        ? { name: block.name, args: block.input }
        : { name: '', args: null }
    },
    toolResult: async (model) => {
      const message = await anthropicSdk().messages.create({
        model,
        max_tokens: 50,
        tools: [anthropicTool],
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'sunny' }],
          },
        ],
      })
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    },
    status: async (model) =>
      (
        (await failure(() =>
          anthropicSdk().messages.create({
            model,
            max_tokens: 5,
            messages: [{ role: 'user', content: 'x' }],
          }),
        )) as { status: number }
      ).status,
    failing: async (model) => {
      let text = ''
      const stream = anthropicSdk().messages.stream({
        model,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'x' }],
      })
      stream.on('text', (delta) => void (text += delta))
      const error = await failure(() => stream.finalMessage())
      return { text, error }
    },
  },
  gemini: {
    text: async (model) =>
      (await genaiSdk().models.generateContent({ model, contents: 'Capital?' })).text ?? '',
    stream: async (model) => {
      let text = ''
      for await (const part of await genaiSdk().models.generateContentStream({
        model,
        contents: 'Capital?',
      }))
        text += part.text ?? ''
      return text
    },
    tool: async (model) => {
      const call = (
        await genaiSdk().models.generateContent({
          model,
          contents: 'Weather?',
          config: { tools: [geminiTool] },
        })
      ).functionCalls?.[0]
      return { name: call?.name ?? '', args: call?.args ?? null }
    },
    streamTool: async (model) => {
      let found: ToolCall = { name: '', args: null }
      for await (const part of await genaiSdk().models.generateContentStream({
        model,
        contents: 'Weather?',
        config: { tools: [geminiTool] },
      })) {
        const call = part.functionCalls?.[0]
        if (call !== undefined) found = { name: call.name ?? '', args: call.args ?? null }
      }
      return found
    },
    toolResult: async (model) =>
      (
        await genaiSdk().models.generateContent({
          model,
          config: { tools: [geminiTool] },
          contents: [
            { role: 'user', parts: [{ text: 'Weather?' }] },
            {
              role: 'model',
              parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
            },
            {
              role: 'user',
              parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }],
            },
          ],
        })
      ).text ?? '',
    status: async (model) =>
      (
        (await failure(() => genaiSdk().models.generateContent({ model, contents: 'x' }))) as {
          status: number
        }
      ).status,
    failing: async (model) => {
      let text = ''
      const error = await failure(async () => {
        for await (const part of await genaiSdk().models.generateContentStream({
          model,
          contents: 'x',
        }))
          text += part.text ?? ''
      })
      return { text, error }
    },
  },
}

const families: Family[] = ['openai', 'anthropic', 'gemini']
const cells = families.flatMap((client) => families.map((group) => [client, group] as const))

describe.each(cells)('%s client × %s group', (client, group) => {
  const model = `${group}-model`
  const answer = (kind: keyof (typeof upstreamAnswers)['openai']) => {
    behaviour[group] = upstreamAnswers[group][kind]
    if (group === 'openai') openaiUpstream.answer(upstreamAnswers.openai[kind])
  }

  it('answers text and meters exactly the usage the upstream reported', async () => {
    answer('text')
    expect(await clients[client].text(model)).toBe('Paris')
    expect(meter.records().at(-1)).toMatchObject({
      outcome: 'ok',
      usage: reportedUsage[group].text,
    })
  })

  it('streams text and meters exactly the usage the upstream reported', async () => {
    answer('stream')
    expect(await clients[client].stream(model)).toBe('Paris')
    expect(meter.records().at(-1)).toMatchObject({
      outcome: 'ok',
      usage: reportedUsage[group].stream,
    })
  })

  it('returns a tool call', async () => {
    answer('tool')
    expect(await clients[client].tool(model)).toEqual({
      name: 'get_weather',
      args: { city: 'Paris' },
    })
  })

  it('streams a tool call', async () => {
    answer('streamTool')
    expect(await clients[client].streamTool(model)).toEqual({
      name: 'get_weather',
      args: { city: 'Paris' },
    })
  })

  it('carries a tool result to the upstream', async () => {
    answer('text')
    expect(await clients[client].toolResult(model)).toBe('Paris')
    const sent = calls[group].at(-1)!.body
    expect(sent).toContain('sunny')
    expect(sent).toContain('get_weather')
  })

  it('relays an upstream 429 as 429', async () => {
    answer('error')
    expect(await clients[client].status(model)).toBe(429)
  })

  it('throws after the partial text when the upstream fails mid-stream', async () => {
    answer('failing')
    const { text, error } = await clients[client].failing(model)
    expect(text).toBe('Paris')
    expect(error).toBeInstanceOf(Error)
  })
})
