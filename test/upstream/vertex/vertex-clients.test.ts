import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter } from '../../../src/index'
import { createNodeFetch, serveGateway } from '../../../src/node/index'
import { keys } from '../../helpers/gateway'
import {
  makeServiceAccount,
  startGoogleTokenFake,
  type GoogleTokenFake,
} from '../../helpers/fakes/google-token-fake'
import { startVertexFake } from '../../helpers/fakes/vertex-fake'

/**
 * Gemini and Claude on Vertex AI through the gateway, reached by the official SDKs at their
 * defaults: every call goes to a loopback Vertex that checks the bearer token the service
 * account's JWT grant earned at a loopback Google token endpoint.
 */
let tokens: GoogleTokenFake
let vertex: Awaited<ReturnType<typeof startVertexFake>>
let served: Awaited<ReturnType<typeof serveGateway>>
const meter = createMemoryUsageMeter()

/** A gateway on loopback with a Gemini and a Claude group on the fake Vertex, with its own key. */
async function serveVertexGateway() {
  const account = makeServiceAccount(tokens.tokenUri)
  tokens.register(account)
  const upstream = {
    provider: 'vertex' as const,
    project: 'test-project',
    region: 'us-east5',
    baseUrl: vertex.url,
    serviceAccount: account.json,
  }
  return serveGateway(
    createGateway({
      groups: [
        {
          id: 'vertex-gemini',
          protocol: 'gemini',
          models: ['gemini-2.5-flash', 'gemini-3-pro-preview', 'text-embedding-005'],
          upstreams: [upstream],
        },
        {
          id: 'vertex-claude',
          protocol: 'anthropic',
          models: [{ name: 'claude-sonnet-4-5', upstreamModel: 'claude-sonnet-4-5@20250929' }],
          upstreams: [upstream],
        },
      ],
      keys: [{ key: keys.main }],
      usageMeter: meter,
      fetch: createNodeFetch(),
    }),
    { port: 0 },
  )
}

beforeAll(async () => {
  tokens = await startGoogleTokenFake()
  vertex = await startVertexFake({
    project: 'test-project',
    region: 'us-east5',
    isValid: tokens.isValid,
  })
  served = await serveVertexGateway()
})
afterAll(async () => {
  await served.close()
  await vertex.close()
  await tokens.close()
})

const openai = () => new OpenAI({ apiKey: keys.main, baseURL: `${served.url}/v1` })
const anthropic = () => new Anthropic({ apiKey: keys.main, baseURL: served.url })
const genai = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: served.url } })
const lastCall = () => vertex.calls.at(-1)!

const prefix = '/v1/projects/test-project/locations/us-east5/publishers'

describe.each(['gemini-2.5-flash', 'claude-sonnet-4-5'])('%s on Vertex AI', (model) => {
  const claude = model.startsWith('claude')
  const path = claude
    ? `${prefix}/anthropic/models/claude-sonnet-4-5@20250929`
    : `${prefix}/google/models/gemini-2.5-flash`

  it('answers the openai SDK, JSON and stream', async () => {
    const json = await openai().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
    })
    expect(json.choices[0]!.message.content).toContain('Answer from')
    expect(json.usage!.prompt_tokens).toBeGreaterThan(0)
    expect(lastCall().path).toBe(`${path}:${claude ? 'rawPredict' : 'generateContent'}`)
    const stream = await openai().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let usage = 0
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      usage = chunk.usage?.completion_tokens ?? usage
    }
    expect(text).toContain('Answer from')
    expect(usage).toBeGreaterThan(0)
    expect(lastCall().path).toBe(
      `${path}:${claude ? 'streamRawPredict' : 'streamGenerateContent?alt=sse'}`,
    )
  })

  it('answers the Responses API', async () => {
    const response = await openai().responses.create({ model, input: 'Hello' })
    expect(response.output_text).toContain('Answer from')
  })

  it('answers the Anthropic SDK, JSON and stream, with tools', async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        input_schema: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
      },
    ]
    const message = await anthropic().messages.create({
      model,
      max_tokens: 1024,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    })
    const use = message.content.find((block) => block.type === 'tool_use')
    expect(use).toBeDefined()
    const final = await anthropic()
      .messages.stream({
        model,
        max_tokens: 1024,
        tools,
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: message.content },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: use!.type === 'tool_use' ? use!.id : '',
                content: '18 C',
              },
            ],
          },
        ],
      })
      .finalMessage()
    expect(final.content.find((block) => block.type === 'text')).toBeDefined()
    expect(final.usage.output_tokens).toBeGreaterThan(0)
  })

  it('answers the @google/genai SDK, JSON, stream and countTokens', async () => {
    const json = await genai().models.generateContent({ model, contents: 'Hello' })
    expect(json.text).toContain('Answer from')
    let text = ''
    for await (const chunk of await genai().models.generateContentStream({ model, contents: 'Hi' }))
      text += chunk.text ?? ''
    expect(text).toContain('Answer from')
    const count = await genai().models.countTokens({ model, contents: 'Hello' })
    expect(count.totalTokens).toBeGreaterThan(0)
  })
})

describe('Claude on Vertex AI', () => {
  it('sends the body Vertex takes: anthropic_version, no model, the beta header kept', async () => {
    await anthropic().beta.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      betas: ['context-1m-2025-08-07'],
      messages: [{ role: 'user', content: 'Hi' }],
    })
    const call = lastCall()
    expect(call.body.anthropic_version).toBe('vertex-2023-10-16')
    expect(call.body.model).toBeUndefined()
    expect(call.headers['anthropic-version']).toBeUndefined()
    expect(call.headers['anthropic-beta']).toContain('context-1m-2025-08-07')
    expect(call.headers.authorization).toMatch(/^Bearer ya29\./)
  })

  it('counts tokens at count-tokens:rawPredict with the model in the body', async () => {
    const count = await anthropic().messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(count.input_tokens).toBe(42)
    expect(lastCall().path).toBe(`${prefix}/anthropic/models/count-tokens:rawPredict`)
    expect(lastCall().body.model).toBe('claude-sonnet-4-5@20250929')
  })

  it("runs Claude Code's shapes: thinking, tools, several turns, streamed", async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'Bash',
        description: 'Executes a given bash command.',
        input_schema: {
          type: 'object',
          properties: { command: { type: 'string' }, timeout: { type: 'number' } },
          required: ['command'],
          additionalProperties: false,
          $schema: 'http://json-schema.org/draft-07/schema#',
        },
      },
    ]
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'List the files here.' }] },
    ]
    const ask = () =>
      anthropic()
        .messages.stream({
          model: 'claude-sonnet-4-5',
          max_tokens: 32_000,
          thinking: { type: 'enabled', budget_tokens: 31_999 },
          system: [
            {
              type: 'text',
              text: "You are Claude Code, Anthropic's official CLI for Claude.",
              cache_control: { type: 'ephemeral' },
            },
          ],
          tools,
          metadata: { user_id: 'user_abc_account_def_session_ghi' },
          messages,
        })
        .finalMessage()
    for (let turn = 0; turn < 3; turn += 1) {
      const answer = await ask()
      expect(answer.content[0]!.type).toBe('thinking')
      messages.push({ role: 'assistant', content: answer.content })
      const use = answer.content.find((block) => block.type === 'tool_use')
      if (use === undefined || use.type !== 'tool_use') {
        expect(answer.stop_reason).toBe('end_turn')
        break
      }
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: use.id, content: 'a.txt\nb.txt' }],
      })
    }
    // The signed thinking blocks went back to Vertex unchanged: the fake checks their signatures.
    expect(messages.length).toBeGreaterThanOrEqual(3)
    expect(lastCall().path).toBe(
      `${prefix}/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict`,
    )
  })
})

describe('Gemini on Vertex AI', () => {
  it('keeps Gemini 3 thought signatures across a tool loop (openai SDK)', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      },
    ]
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather?' }]
    const first = await openai().chat.completions.create({
      model: 'gemini-3-pro-preview',
      messages,
      tools,
    })
    const message = first.choices[0]!.message
    expect(message.tool_calls).toHaveLength(1)
    messages.push(message, {
      role: 'tool',
      tool_call_id: message.tool_calls![0]!.id,
      content: '18 C',
    })
    // Vertex refuses a Gemini 3 function call without the signature it issued (the fake's rule).
    const second = await openai().chat.completions.create({
      model: 'gemini-3-pro-preview',
      messages,
      tools,
    })
    expect(second.choices[0]!.message.content).toContain('after the function result')
  })

  it('embeds one text at :embedContent and a list at :predict', async () => {
    const one = await openai().embeddings.create({ model: 'text-embedding-005', input: 'one' })
    expect(one.data[0]!.embedding[1]).toBeCloseTo(0.2)
    expect(lastCall().path).toBe(`${prefix}/google/models/text-embedding-005:embedContent`)
    const many = await openai().embeddings.create({
      model: 'text-embedding-005',
      input: ['one', 'two'],
      dimensions: 3,
    })
    expect(many.data.map((item) => item.embedding[0])).toEqual([0, 1])
    expect(lastCall().path).toBe(`${prefix}/google/models/text-embedding-005:predict`)
    expect(lastCall().body).toEqual({
      instances: [{ content: 'one' }, { content: 'two' }],
      parameters: { outputDimensionality: 3 },
    })
    const batch = await genai().models.embedContent({
      model: 'text-embedding-005',
      contents: ['a', 'b', 'c'],
    })
    expect(batch.embeddings).toHaveLength(3)
  })
})

describe('Vertex tokens', () => {
  it('fetches one token for a burst of 200 concurrent requests, cold and after a revocation', async () => {
    const fresh = await serveVertexGateway()
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${fresh.url}/v1` })
    const burst = () =>
      Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          client.chat.completions.create({
            model: index % 2 === 0 ? 'gemini-2.5-flash' : 'claude-sonnet-4-5',
            messages: [{ role: 'user', content: `Hello ${index}` }],
            max_tokens: 64,
          }),
        ),
      )
    try {
      let before = tokens.fetches
      let answers = await burst()
      expect(answers.every((answer) => (answer.choices[0]!.message.content ?? '') !== '')).toBe(
        true,
      )
      expect(tokens.fetches - before).toBe(1)
      // Every token revoked: the burst's refusals renew once between them, each call retried once.
      tokens.revokeAll()
      before = tokens.fetches
      answers = await burst()
      expect(answers).toHaveLength(200)
      expect(tokens.fetches - before).toBe(1)
    } finally {
      await fresh.close()
    }
  })

  it('refreshes an expired token once and retries the call', async () => {
    const before = { fetches: tokens.fetches, refused: vertex.unauthenticated }
    tokens.revokeAll()
    const answer = await anthropic().messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(answer.content[0]!.type).toBe('text')
    expect(tokens.fetches - before.fetches).toBe(1)
    expect(vertex.unauthenticated - before.refused).toBe(1)
  })
})
