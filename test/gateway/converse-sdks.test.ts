import Anthropic from '@anthropic-ai/sdk'
import { ApiError, GoogleGenAI, type Content } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as z from 'zod/mini'
import {
  createGateway,
  createHttpProvider,
  createMemoryUsageMeter,
  defineUpstreamKind,
  upstreamSpecificationVersion,
  type HttpWire,
  type RequestEvent,
} from '../../src/index'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { startConverseFake, type ConverseFake } from '../helpers/fakes/converse-fake'

const upstreamKey = 'bedrock-api-key-0123456789abcdef'
const clientKey = 'sk-test-converse-0123456789abcdefAB'

/**
 * Bedrock's Converse paths with a Bedrock API key (a bearer token): what the bedrock kind sends
 * once signed, without the signing, which is that kind's own concern.
 */
const converseWire: HttpWire = {
  path: (call) =>
    `/model/${encodeURIComponent(call.model)}/${call.operation === 'converse-stream' ? 'converse-stream' : 'converse'}`,
  credentialHeader: (apiKey) => ['authorization', `Bearer ${apiKey}`],
}

/** A test-only kind that serves `converse` groups over that wire (an application's own kind). */
const converseKind = defineUpstreamKind({
  specificationVersion: upstreamSpecificationVersion,
  name: 'converse-fake',
  protocols: ['converse'],
  schema: () =>
    z.strictObject({
      provider: z.literal('converse-fake'),
      baseUrl: z.string(),
      apiKey: z.string(),
    }),
  create: (settings, context) =>
    createHttpProvider({
      id: context.id,
      protocol: 'converse',
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      fetch: context.fetch,
      wire: converseWire,
    }),
})

const weather = {
  type: 'object' as const,
  properties: { city: { type: 'string' } },
  required: ['city'],
}

let fake: ConverseFake
let served: ServedGateway
let meter = createMemoryUsageMeter()
const events: RequestEvent[] = []

/** AWS keys the fake's SigV4 verifier knows, for the run over the bedrock kind. */
const awsCredentials = {
  accessKeyId: 'AKIAQNZGKEXAMPLE0004',
  secretAccessKey: 'Y29udmVyc2Utc2Rrcy1zZWNyZXQtYWNjZXNzLWtleQ',
}
const region = 'us-east-1'

/**
 * The two ways a converse group reaches Converse: a kind of the application's over SSE with a
 * bearer key (the seam), and the bedrock kind itself — SigV4 recomputed by the fake's verifier,
 * ConverseStream's binary frames split across reads, the default fetch transport.
 */
const wires = {
  'an application kind (SSE, bearer key)': 'sse',
  'the bedrock kind (SigV4, binary event stream)': 'bedrock',
} as const

/** Starts the fake and a gateway whose `bedrock` group reaches it over `wire`. */
async function start(wire: 'sse' | 'bedrock') {
  events.length = 0
  meter = createMemoryUsageMeter()
  fake = await startConverseFake({
    apiKey: upstreamKey,
    models: [
      'amazon.nova-pro-v1:0',
      'us.amazon.nova-2-lite-v1:0',
      'us.deepseek.r1-v1:0',
      'amazon.nova-lite-v1:0-throttled',
    ],
    aws: wire === 'bedrock' ? { region, credentials: awsCredentials, writeBytes: 13 } : undefined,
  })
  const upstream =
    wire === 'bedrock'
      ? { provider: 'bedrock', region, baseUrl: fake.url, ...awsCredentials }
      : { provider: 'converse-fake', baseUrl: fake.url, apiKey: upstreamKey }
  const gateway = createGateway({
    upstreamKinds: [converseKind],
    groups: [
      {
        id: 'bedrock',
        protocol: 'converse',
        models: [
          { name: 'nova-pro', upstreamModel: 'amazon.nova-pro-v1:0' },
          { name: 'nova-2', upstreamModel: 'us.amazon.nova-2-lite-v1:0' },
          { name: 'r1', upstreamModel: 'us.deepseek.r1-v1:0' },
          { name: 'throttled', upstreamModel: 'amazon.nova-lite-v1:0-throttled' },
        ],
        upstreams: [upstream],
      },
    ],
    keys: [{ key: clientKey, name: 'converse' }],
    usageMeter: meter,
    onEvent: (event) => events.push(event),
  })
  served = await serveGateway(gateway, { port: 0, host: '127.0.0.1' })
}

async function stop() {
  await served?.close()
  await fake?.close()
}

/** The first block of the assistant turn in the last request the fake got, as Converse reasoning. */
function sentAssistantReasoning(): unknown {
  const messages = fake.calls.at(-1)!.body['messages'] as Array<{
    role: string
    content: Array<Record<string, unknown>>
  }>
  return messages.find((message) => message.role === 'assistant')?.content[0]?.['reasoningContent']
}

const openai = () => new OpenAI({ apiKey: clientKey, baseURL: `${served.url}/v1` })
const anthropic = () => new Anthropic({ apiKey: clientKey, baseURL: served.url })
const genai = () => new GoogleGenAI({ apiKey: clientKey, httpOptions: { baseUrl: served.url } })

for (const [title, wire] of Object.entries(wires)) {
  describe(`a converse group over ${title}`, () => {
    beforeAll(() => start(wire))
    afterAll(stop)

    it('sends each call as its wire wants: a bearer key, or a SigV4 signature', async () => {
      await openai().chat.completions.create({
        model: 'nova-pro',
        messages: [{ role: 'user', content: 'Hi' }],
      })
      expect(fake.calls.at(-1)!.path).toBe('/model/amazon.nova-pro-v1%3A0/converse')
      expect(fake.calls.at(-1)!.auth).toMatch(
        wire === 'bedrock'
          ? /^AWS4-HMAC-SHA256 Credential=AKIAQNZGKEXAMPLE0004\/\d{8}\/us-east-1\/bedrock\/aws4_request, /
          : /^Bearer /,
      )
    })

    describe('Converse group × openai SDK (chat completions)', () => {
      it('answers JSON and a stream, with usage', async () => {
        const answer = await openai().chat.completions.create({
          model: 'nova-pro',
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'user', content: 'Hello!' },
          ],
        })
        expect(answer.choices[0]!.message.content).toBe('Answer from amazon.nova-pro-v1:0: Hello!')
        expect(answer.choices[0]!.finish_reason).toBe('stop')
        expect(answer.usage?.prompt_tokens).toBe(fake.usages.at(-1)!['inputTokens'])
        expect(fake.calls.at(-1)!.body['system']).toEqual([{ text: 'Be terse.' }])

        const stream = await openai().chat.completions.create({
          model: 'nova-pro',
          messages: [{ role: 'user', content: 'Stream it' }],
          stream: true,
          stream_options: { include_usage: true },
        })
        let text = ''
        let finish: string | null = null
        let usage: OpenAI.CompletionUsage | undefined
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? ''
          finish = chunk.choices[0]?.finish_reason ?? finish
          usage = chunk.usage ?? usage
        }
        expect(text).toBe('Answer from amazon.nova-pro-v1:0: Stream it')
        expect(finish).toBe('stop')
        expect(usage?.completion_tokens).toBe(fake.usages.at(-1)!['outputTokens'])
        expect(fake.calls.at(-1)!.stream).toBe(true)
      })

      it.each([false, true])('runs a tool loop over two turns (stream: %s)', async (stream) => {
        const client = openai()
        const tools: OpenAI.ChatCompletionTool[] = [
          { type: 'function', function: { name: 'get_weather', parameters: weather } },
        ]
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: 'user', content: 'Weather in Paris?' },
        ]
        const first = stream
          ? await client.chat.completions
              .stream({ model: 'nova-pro', messages, tools })
              .finalChatCompletion()
          : await client.chat.completions.create({ model: 'nova-pro', messages, tools })
        const call = first.choices[0]!.message.tool_calls?.[0]
        expect(first.choices[0]!.finish_reason).toBe('tool_calls')
        expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } })
        if (call?.type !== 'function') throw new Error('expected a function call')
        expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) })
        messages.push(first.choices[0]!.message, {
          role: 'tool',
          tool_call_id: call.id,
          content: '18°C',
        })
        const second = stream
          ? await client.chat.completions
              .stream({ model: 'nova-pro', messages, tools })
              .finalChatCompletion()
          : await client.chat.completions.create({ model: 'nova-pro', messages, tools })
        expect(second.choices[0]!.message.content).toBe(
          'Answer from amazon.nova-pro-v1:0: the tool said 18°C',
        )
        const sent = fake.calls.at(-1)!.body['messages'] as Array<{ content: unknown[] }>
        expect(sent).toHaveLength(3)
        expect(sent[2]!.content).toEqual([
          { toolResult: { toolUseId: call.id, content: [{ text: '18°C' }] } },
        ])
      })

      it('refuses an image given by URL with a 400 in OpenAI’s shape, before any upstream call', async () => {
        const before = fake.calls.length
        const error = await openai()
          .chat.completions.create({
            model: 'nova-pro',
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'What is this?' },
                  { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
                ],
              },
            ],
          })
          .catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(OpenAI.BadRequestError)
        expect((error as Error).message).toMatch(/takes images as data, not URLs/)
        expect(fake.calls.length).toBe(before)
      })

      it('sends an inline image as bytes with its format', async () => {
        const png =
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=='
        await openai().chat.completions.create({
          model: 'nova-pro',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Describe' },
                { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
              ],
            },
          ],
        })
        const sent = fake.calls.at(-1)!.body['messages'] as Array<{ content: unknown[] }>
        expect(sent[0]!.content[1]).toEqual({ image: { format: 'png', source: { bytes: png } } })
      })
    })

    describe('Converse group × @anthropic-ai/sdk', () => {
      it('reports cache writes, then reads, for a cached system prompt', async () => {
        const system: Anthropic.TextBlockParam[] = [
          { type: 'text', text: 'A long shared preamble.', cache_control: { type: 'ephemeral' } },
        ]
        const ask = (text: string) =>
          anthropic().messages.create({
            model: 'nova-pro',
            max_tokens: 256,
            system,
            messages: [{ role: 'user', content: text }],
          })
        const first = await ask('One')
        const second = await ask('Two')
        expect(fake.calls.at(-1)!.body['system']).toEqual([
          { text: 'A long shared preamble.' },
          { cachePoint: { type: 'default' } },
        ])
        expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0)
        expect(first.usage.cache_read_input_tokens).toBe(0)
        expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens)
        expect(second.usage.input_tokens).toBe(fake.usages.at(-1)!['inputTokens'])
        expect(second.content).toEqual([
          { type: 'text', text: 'Answer from amazon.nova-pro-v1:0: Two' },
        ])
      })

      it.each([false, true])(
        'runs a tool loop over two turns with Nova 2 reasoning (stream: %s)',
        async (stream) => {
          const client = anthropic()
          const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: weather }]
          const messages: Anthropic.MessageParam[] = [
            { role: 'user', content: 'Weather in Paris?' },
          ]
          const params = {
            model: 'nova-2',
            max_tokens: 4096,
            thinking: { type: 'enabled' as const, budget_tokens: 2048 },
            tools,
          }
          const first = stream
            ? await client.messages.stream({ ...params, messages }).finalMessage()
            : await client.messages.create({ ...params, messages })
          expect(fake.calls.at(-1)!.body['additionalModelRequestFields']).toEqual({
            reasoningConfig: { type: 'enabled', maxReasoningEffort: 'medium' },
          })
          expect(first.stop_reason).toBe('tool_use')
          expect(first.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use'])
          const use = first.content.find((block) => block.type === 'tool_use')!
          messages.push(
            { role: 'assistant', content: first.content },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny' }],
            },
          )
          const second = stream
            ? await client.messages.stream({ ...params, messages }).finalMessage()
            : await client.messages.create({ ...params, messages })
          expect(second.stop_reason).toBe('end_turn')
          // The signature Converse handed out went back to it, byte for byte, first in its turn.
          expect(sentAssistantReasoning()).toEqual({
            reasoningText: {
              text: 'Weighing the tools.',
              signature: expect.stringMatching(/^sig-/),
            },
          })
          expect(second.content.at(-1)).toMatchObject({
            type: 'text',
            text: 'Answer from us.amazon.nova-2-lite-v1:0: the tool said Sunny',
          })
        },
      )
    })

    describe('Converse group × @google/genai', () => {
      it('answers generateContent and generateContentStream', async () => {
        const answer = await genai().models.generateContent({
          model: 'nova-pro',
          contents: 'Bonjour',
        })
        expect(answer.text).toBe('Answer from amazon.nova-pro-v1:0: Bonjour')
        expect(answer.usageMetadata?.candidatesTokenCount).toBe(fake.usages.at(-1)!['outputTokens'])
        let text = ''
        for await (const chunk of await genai().models.generateContentStream({
          model: 'nova-pro',
          contents: 'Streamed',
        })) {
          text += chunk.text ?? ''
        }
        expect(text).toBe('Answer from amazon.nova-pro-v1:0: Streamed')
      })

      it.each([false, true])(
        'runs a function-calling loop over two turns (stream: %s)',
        async (stream) => {
          const client = genai()
          const config = {
            tools: [
              { functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weather }] },
            ],
            thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
          }
          const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }]
          const ask = async () => {
            if (!stream) return client.models.generateContent({ model: 'nova-2', contents, config })
            const parts: NonNullable<Content['parts']> = []
            for await (const chunk of await client.models.generateContentStream({
              model: 'nova-2',
              contents,
              config,
            }))
              parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []))
            return { candidates: [{ content: { role: 'model', parts } }] }
          }
          const first = await ask()
          const call = first.candidates?.[0]?.content?.parts?.find((part) => part.functionCall)
          expect(call?.functionCall?.name).toBe('get_weather')
          contents.push(first.candidates![0]!.content as Content, {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  id: call!.functionCall!.id,
                  name: 'get_weather',
                  response: { temperature: '18°C' },
                },
              },
            ],
          })
          const second = await ask()
          const parts = second.candidates?.[0]?.content?.parts ?? []
          // Thoughts come as thought parts; the answer is the rest.
          const joined = (thought: boolean) =>
            parts
              .filter((part) => (part.thought ?? false) === thought)
              .map((part) => part.text ?? '')
              .join('')
          expect(joined(true)).toBe('Weighing the tools.')
          expect(joined(false)).toMatch(
            /^Answer from us\.amazon\.nova-2-lite-v1:0: the tool said .*18°C/,
          )
          expect(sentAssistantReasoning()).toEqual({
            reasoningText: {
              text: 'Weighing the tools.',
              signature: expect.stringMatching(/^sig-/),
            },
          })
        },
      )
    })

    describe('Converse group × Responses API (openai SDK)', () => {
      it('answers responses.create, JSON and stream', async () => {
        const answer = await openai().responses.create({ model: 'nova-pro', input: 'Hi there' })
        expect(answer.output_text).toBe('Answer from amazon.nova-pro-v1:0: Hi there')
        expect(answer.usage?.output_tokens).toBe(fake.usages.at(-1)!['outputTokens'])
        const stream = await openai().responses.create({
          model: 'nova-pro',
          input: 'Again',
          stream: true,
        })
        let text = ''
        let last = ''
        for await (const event of stream) {
          if (event.type === 'response.output_text.delta') text += event.delta
          last = event.type
        }
        expect(text).toBe('Answer from amazon.nova-pro-v1:0: Again')
        expect(last).toBe('response.completed')
      })

      it.each([false, true])(
        'runs a function-call loop over two turns (stream: %s)',
        async (stream) => {
          const client = openai()
          const tools: OpenAI.Responses.Tool[] = [
            { type: 'function', name: 'get_weather', parameters: weather, strict: false },
          ]
          const input: OpenAI.Responses.ResponseInput = [
            { role: 'user', content: 'Weather in Paris?' },
          ]
          const params = {
            model: 'nova-2',
            tools,
            store: false,
            reasoning: { effort: 'low' as const },
            include: ['reasoning.encrypted_content' as const],
          }
          const ask = () =>
            stream
              ? client.responses.stream({ ...params, input }).finalResponse()
              : client.responses.create({ ...params, input })
          const first = await ask()
          const call = first.output.find((item) => item.type === 'function_call')
          expect(call).toMatchObject({ name: 'get_weather', status: 'completed' })
          if (call?.type !== 'function_call') throw new Error('expected a function call')
          input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
            type: 'function_call_output',
            call_id: call.call_id,
            output: 'Rainy',
          })
          const second = await ask()
          expect(second.output_text).toBe(
            'Answer from us.amazon.nova-2-lite-v1:0: the tool said Rainy',
          )
          expect(sentAssistantReasoning()).toEqual({
            reasoningText: {
              text: 'Weighing the tools.',
              signature: expect.stringMatching(/^sig-/),
            },
          })
        },
      )
    })

    describe('Converse group: usage and refusals', () => {
      it('lists its models to every client', async () => {
        const ids: string[] = []
        for await (const model of openai().models.list()) ids.push(model.id)
        expect(ids).toEqual(expect.arrayContaining(['nova-pro', 'nova-2', 'r1']))
        const anthropicIds: string[] = []
        for await (const model of anthropic().models.list()) anthropicIds.push(model.id)
        expect(anthropicIds).toEqual(expect.arrayContaining(['nova-pro', 'nova-2', 'r1']))
      })

      it('meters what the upstream reported, and refuses tools to DeepSeek R1 with a 400', async () => {
        const error = await openai()
          .chat.completions.create({
            model: 'r1',
            messages: [{ role: 'user', content: 'x' }],
            tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
          })
          .catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(OpenAI.BadRequestError)
        expect((error as Error).message).toMatch(/does not take tools/)
        const answer = await openai().chat.completions.create({
          model: 'r1',
          messages: [{ role: 'user', content: 'Think' }],
        })
        expect(answer.choices[0]!.message.content).toBe('Answer from us.deepseek.r1-v1:0: Think')
        expect(
          (answer.choices[0]!.message as { reasoning_content?: string }).reasoning_content,
        ).toBe('Thinking it over.')
        const event = events.findLast((item) => item.model === 'r1' && item.outcome === 'ok')
        expect(event?.usage?.outputTokens).toBe(fake.usages.at(-1)!['outputTokens'])
      })
    })

    describe('Converse group: a throttling exception mid-stream', () => {
      it('reaches the openai SDK as an error, never as a normal end', async () => {
        const stream = await openai().chat.completions.create({
          model: 'throttled',
          messages: [{ role: 'user', content: 'Go' }],
          stream: true,
        })
        let text = ''
        const error = await (async () => {
          for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
        })().catch((caught: unknown) => caught)
        expect(text).toBe('Partial')
        expect(error).toBeInstanceOf(Error)
        expect((error as Error).message).toMatch(/Too many tokens/)
      })

      it('reaches the Anthropic SDK as an error event', async () => {
        const error = await anthropic()
          .messages.stream({
            model: 'throttled',
            max_tokens: 100,
            messages: [{ role: 'user', content: 'Go' }],
          })
          .finalMessage()
          .catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(Anthropic.APIError)
        expect((error as Error).message).toMatch(/rate_limit_error|Too many tokens/)
      })

      it('reaches the openai SDK on the Responses API as an error, never completed', async () => {
        const stream = await openai().responses.create({
          model: 'throttled',
          input: 'Go',
          stream: true,
        })
        const types: string[] = []
        const error = await (async () => {
          for await (const event of stream) types.push(event.type)
        })().catch((caught: unknown) => caught)
        expect(types).toContain('response.output_text.delta')
        expect(types).not.toContain('response.completed')
        expect(String(error)).toMatch(/Too many tokens/)
      })

      it('reaches the @google/genai SDK as an error after the first words', async () => {
        let text = ''
        const error = await (async () => {
          for await (const chunk of await genai().models.generateContentStream({
            model: 'throttled',
            contents: 'Go',
          }))
            text += chunk.text ?? ''
        })().catch((caught: unknown) => caught)
        expect(text).toBe('Partial')
        // The error object, in whichever network read it arrives, is the SDK's ApiError.
        expect(error).toBeInstanceOf(ApiError)
        expect(error).toMatchObject({ status: 429 })
        expect((error as Error).message).toMatch(/RESOURCE_EXHAUSTED.*Too many tokens/)
      })
    })
  })
}
