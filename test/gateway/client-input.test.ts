import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
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
} from '../helpers/gemini-upstream'
import { topLevelKeys } from '../helpers/json-keys'
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
const geminiAnswer: UpstreamBehaviour = { kind: 'json', body: geminiResponse([{ text: 'Hi' }]) }
const anthropicAnswer: UpstreamBehaviour = {
  kind: 'json',
  body: anthropicMessage([{ type: 'text', text: 'Hi' }]),
}
let current = build()
openai.server.use(
  ...geminiHandlers({ calls: geminiCalls, behaviour: () => geminiAnswer }),
  ...anthropicHandlers({ calls: anthropicCalls, behaviour: () => anthropicAnswer }),
  gatewayHandler(gatewayUrl, () => current.gateway),
)
beforeAll(() => openai.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => openai.server.close())
afterEach(() => {
  current = build()
  openai.answer({ kind: 'json', body: chatCompletion('Hello!') })
})

/** Three groups, each serving an alias whose upstream name differs from the call name. */
function build() {
  return buildGateway({
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: [{ name: 'fast', upstreamModel: 'gpt-4o-mini' }, 'gpt-4o'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: [{ name: 'sonnet', upstreamModel: 'claude-sonnet-4-5' }, 'claude-opus-4-1'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'gem',
        protocol: 'gemini',
        models: [{ name: 'flash', upstreamModel: 'gemini-2.5-flash' }, 'gemini-2.5-pro'],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
    ],
    keys: [{ key: keys.main }],
  })
}

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return current.gateway(
    new Request(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keys.main}`,
        'content-type': 'application/json',
        ...headers,
      },
      body,
    }),
  )
}

const user = '"messages":[{"role":"user","content":"Hi"}]'

describe('passthrough bodies whose keys are written twice or with escapes', () => {
  it.each([
    ['an escaped model key', `{"model":"fast","mod\\u0065l":"gpt-4o",${user}}`],
    ['a duplicate model key', `{"model":"fast",${user},"model":"gpt-4o"}`],
    ['a first duplicate naming the expensive model', `{"model":"gpt-4o","model":"fast",${user}}`],
  ])('chat-completions: %s reaches the upstream naming the routed model once', async (_, body) => {
    const response = await post('/v1/chat/completions', body)
    expect(response.status).toBe(200)
    const sent = openai.lastCall().body
    const routed = JSON.parse(body).model === 'fast' ? 'gpt-4o-mini' : 'gpt-4o'
    expect(JSON.parse(sent).model).toBe(routed)
    // Every parser, first-wins or last-wins, reads the same members.
    expect(topLevelKeys(sent)).toEqual([...new Set(topLevelKeys(sent))])
  })

  it('chat-completions stream: an escaped stream_options cannot turn the usage chunk off', async () => {
    openai.answer({ kind: 'sse', frames: chatStreamFrames(['Hi', '!'], { includeUsage: true }) })
    const body = `{"model":"fast","stream":true,"stream_optio\\u006es":{"include_usage":false},${user}}`
    const response = await post('/v1/chat/completions', body)
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(text).toContain('data: [DONE]')
    const sent = JSON.parse(openai.lastCall().body)
    expect(sent.stream_options).toEqual({ include_usage: true })
    expect(sent.model).toBe('gpt-4o-mini')
    // The client did not ask for usage (the parsed body says include_usage: false): no usage chunk.
    expect(text).not.toContain('"prompt_tokens"')
    const record = current.meter.records().at(-1)!
    expect(record).toMatchObject({ outcome: 'ok', usage: { inputTokens: 21, outputTokens: 2 } })
  })

  it.each(['/v1/messages', '/v1/messages/count_tokens'])(
    '%s: an escaped model key reaches Anthropic as the routed model',
    async (path) => {
      const body = `{"model":"sonnet","mod\\u0065l":"claude-opus-4-1","max_tokens":64,${user}}`
      const response = await post(path, body, { 'anthropic-version': '2023-06-01' })
      expect(response.status).toBe(200)
      const sent = anthropicCalls.at(-1)!.body
      expect(JSON.parse(sent).model).toBe('claude-opus-4-1')
      expect(topLevelKeys(sent)).toEqual(['model', 'max_tokens', 'messages'])
    },
  )

  it('messages: a duplicate model key is sent once, as routed', async () => {
    const body = `{"model":"claude-opus-4-1","max_tokens":64,${user},"model":"sonnet"}`
    expect((await post('/v1/messages', body)).status).toBe(200)
    const sent = anthropicCalls.at(-1)!.body
    expect(sent).toBe(`{"model":"claude-sonnet-4-5","max_tokens":64,${user}}`)
  })

  it('Gemini: a model named in the body, plainly or with escapes, becomes the routed one', async () => {
    const contents = '"contents":[{"role":"user","parts":[{"text":"Hi"}]}]'
    const path = '/v1beta/models/flash:generateContent'
    expect((await post(path, `{"model":"models/gemini-2.5-pro",${contents}}`)).status).toBe(200)
    expect(geminiCalls.at(-1)!.url).toContain('/models/gemini-2.5-flash:generateContent')
    expect(geminiCalls.at(-1)!.body).toBe(`{"model":"models/gemini-2.5-flash",${contents}}`)
    expect((await post(path, `{"mod\\u0065l":"models/gemini-2.5-pro",${contents}}`)).status).toBe(
      200,
    )
    expect(JSON.parse(geminiCalls.at(-1)!.body).model).toBe('models/gemini-2.5-flash')
  })

  it('Gemini countTokens: the model inside generateContentRequest becomes the routed one', async () => {
    const body =
      '{"generateContentRequest":{"model":"models/gemini-2.5-pro","contents":[{"parts":[{"text":"Hi"}]}]}}'
    const response = await post('/v1beta/models/flash:countTokens', body)
    expect(await response.json()).toEqual({ totalTokens: 17 })
    expect(JSON.parse(geminiCalls.at(-1)!.body).generateContentRequest.model).toBe(
      'models/gemini-2.5-flash',
    )
  })

  it('keeps the client bytes of an ordinary body (the splice, not a re-encode)', async () => {
    const body = `{ "model" : "fast" , ${user}, "temperature" : 1.50, "x" : {"y":[1.0]} }`
    await post('/v1/chat/completions', body)
    expect(openai.lastCall().body).toBe(body.replace('"fast"', '"gpt-4o-mini"'))
  })
})

const sdkOpenAI = () => openAIClient(current.gateway)
const sdkAnthropic = () =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetchThrough(current.gateway),
    maxRetries: 0,
  })
const sdkGemini = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })

/** A JSON Schema nested `depth` levels deep through `properties`. */
function deepSchema(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' }
  for (let level = 0; level < depth; level += 1) {
    schema = { type: 'object', properties: { inner: schema } }
  }
  return schema
}

describe('nesting limit', () => {
  it('answers 400 in OpenAI shape to a tool schema nested 2,000 deep, before any walk', async () => {
    const calls = anthropicCalls.length
    const error = await sdkOpenAI()
      .chat.completions.create({
        model: 'sonnet',
        messages: [{ role: 'user', content: 'Hi' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: deepSchema(1000) } }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(
      /more than 128 levels deep/,
    )
    expect(anthropicCalls).toHaveLength(calls)
  })

  it('answers 400 in Anthropic shape to tool input nested 1,500 deep', async () => {
    let input: unknown = 'x'
    for (let level = 0; level < 1500; level += 1) input = [input]
    const error = await sdkAnthropic()
      .messages.create({
        model: 'fast',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't1', name: 'f', input: { a: input } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        ],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    })
  })

  it('answers 400 in Google shape to a Gemini body nested 3,000 deep', async () => {
    const calls = openai.calls.length + anthropicCalls.length + geminiCalls.length
    const error = await sdkGemini()
      .models.generateContent({
        model: 'fast',
        contents: 'Hi',
        config: {
          tools: [
            { functionDeclarations: [{ name: 'f', parametersJsonSchema: deepSchema(1500) }] },
          ],
        },
      })
      .catch((caught: unknown) => caught)
    expect(String(error)).toMatch(/INVALID_ARGUMENT/)
    expect(String(error)).toMatch(/more than 128 levels deep/)
    expect(openai.calls.length + anthropicCalls.length + geminiCalls.length).toBe(calls)
  })

  it('lets a body exactly 128 levels deep through', async () => {
    // body → tools → tool → function → parameters: 5 levels, then the schema's own.
    const completion = await sdkOpenAI().chat.completions.create({
      model: 'fast',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: deepSchema(61) } }],
    })
    expect(completion.choices[0]!.message.content).toBe('Hello!')
  })
})

describe('array limits', () => {
  it('refuses more than 100,000 messages with a 400 naming `messages`', async () => {
    const messages = Array.from({ length: 100_001 }, () => ({
      role: 'user' as const,
      content: 'x',
    }))
    const error = await sdkOpenAI()
      .chat.completions.create({ model: 'fast', messages })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    const apiError = error as InstanceType<typeof OpenAI.BadRequestError>
    expect(apiError.param).toBe('messages')
    expect(apiError.message).toMatch(/holds 100001 items; the gateway accepts at most 100000/)
  })

  it('refuses more than 10,000 content blocks in one message, naming it', async () => {
    const content = Array.from({ length: 10_001 }, () => ({ type: 'text' as const, text: 'x' }))
    const error = await sdkAnthropic()
      .messages.create({
        model: 'sonnet',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello' },
          { role: 'user', content },
        ],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as Error).message).toMatch(/`messages\[2\]\.content` holds 10001 items/)
  })

  it('refuses more than 10,000 parts in a Gemini turn, naming it', async () => {
    const parts = Array.from({ length: 10_001 }, () => ({ text: 'x' }))
    const error = await sdkGemini()
      .models.generateContent({ model: 'flash', contents: [{ role: 'user', parts }] })
      .catch((caught: unknown) => caught)
    expect(String(error)).toMatch(/`contents\[0\]\.parts` holds 10001 items/)
  })

  it('accepts a long agent session: 5,000 messages', async () => {
    const messages = Array.from({ length: 5_000 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `turn ${index}`,
    }))
    const message = await sdkAnthropic().messages.create({
      model: 'sonnet',
      max_tokens: 64,
      messages,
    })
    expect(message.content).toEqual([{ type: 'text', text: 'Hi' }])
  })
})

describe('routing before validation', () => {
  it('answers an unknown model 404 without validating the body', async () => {
    const response = await post(
      '/v1/chat/completions',
      '{"model":"nope","messages":"not an array"}',
    )
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { code: 'model_not_found' } })
  })

  it('still names a bad field with 400 for a known model', async () => {
    const response = await post(
      '/v1/chat/completions',
      '{"model":"fast","messages":"not an array"}',
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { param: 'messages' } })
  })

  it.each([
    ['{"messages":[]}', 'model'],
    ['{"model":"","messages":[]}', 'model'],
    ['{"model":42,"messages":[]}', 'model'],
    ['[1,2]', null],
  ])('answers %s with 400 before routing', async (body, param) => {
    const response = await post('/v1/chat/completions', body)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { param } })
  })
})

describe('client strings that name Object.prototype members', () => {
  const prototypeNames = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty']

  it.each(prototypeNames)(
    'an Anthropic block typed %s is an unknown block, not a 500',
    async (type) => {
      const body = JSON.stringify({
        model: 'fast',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type, text: 'x' },
              { type: 'text', text: 'Hi' },
            ],
          },
        ],
      })
      const response = await post('/v1/messages', body)
      expect(response.status).toBe(200)
      expect(JSON.parse(openai.lastCall().body).messages).toEqual([{ role: 'user', content: 'Hi' }])
    },
  )

  it.each(prototypeNames)(
    'a Gemini body with fields named %s is normalised, not a 500',
    async (name) => {
      const text = `{"contents":[{"parts":[{"text":"Hi"}],"${name}":{"${name}":{"x":1}}}],"${name}":[1]}`
      const response = await post('/v1beta/models/fast:generateContent', text)
      expect(response.status).toBe(200)
      expect(openai.lastBody().messages).toEqual([{ role: 'user', content: 'Hi' }])
    },
  )

  it('keeps a tool parameter named __proto__ through schema conversion', async () => {
    const parameters = JSON.parse(
      '{"type":"OBJECT","properties":{"__proto__":{"type":"STRING"}},"__proto__":{"type":"x"}}',
    )
    const response = await post(
      '/v1beta/models/fast:generateContent',
      JSON.stringify({
        contents: [{ parts: [{ text: 'Hi' }] }],
        tools: [{ functionDeclarations: [{ name: 'f', parameters }] }],
      }),
    )
    expect(response.status).toBe(200)
    const sent = openai.lastCall().body
    expect(sent).toContain('"properties":{"__proto__":{"type":"string"}}')
    expect(sent).toContain('"__proto__":{"type":"x"}')
  })

  it.each(['toString', 'constructor', '__proto__'])(
    'POST /v1beta/models/x:%s is an unknown route in Google shape',
    async (action) => {
      const response = await post(`/v1beta/models/flash:${action}`, '{}')
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } })
    },
  )

  it('an image URL ending in .constructor gets the default image type, not a prototype member', async () => {
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'flash',
        messages: [
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.constructor' } }],
          },
        ],
      }),
    )
    expect(response.status).toBe(200)
    expect(JSON.parse(geminiCalls.at(-1)!.body).contents[0].parts[0].fileData).toEqual({
      fileUri: 'https://x.test/a.constructor',
      mimeType: 'image/jpeg',
    })
  })

  it('ids and names that are objects with their own toString do not break translation', async () => {
    const body = JSON.stringify({
      model: 'sonnet',
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: { toString: 1 },
              type: 'function',
              function: { name: { valueOf: 1 }, arguments: '{}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: '{"toString":1}', content: 'ok' },
      ],
    })
    const response = await post('/v1/chat/completions', body)
    expect(response.status).toBeLessThan(500)
  })
})

describe('client strings echoed in headers', () => {
  it('a Responses built-in tool typed with a lone surrogate or a line break is listed safely', async () => {
    const body = JSON.stringify({
      model: 'fast',
      input: 'Hi',
      tools: [{ type: '\ud83d' }, { type: 'web_search\r\nx-injected: 1' }],
    })
    const response = await post('/v1/responses', body)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-gateway-dropped-tools')).toBe(
      '%EF%BF%BD, web_search%0D%0Ax-injected: 1',
    )
    expect(response.headers.get('x-injected')).toBeNull()
  })
})
