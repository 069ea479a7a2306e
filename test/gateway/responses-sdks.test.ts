import { createOpenAI } from '@ai-sdk/openai'
import {
  Agent,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool as agentTool,
} from '@openai/agents'
import { generateText, jsonSchema, stepCountIs, streamText, tool as aiTool } from 'ai'
import { zodTextFormat } from 'openai/helpers/zod'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { keys, gatewayUrl } from '../helpers/gateway'
import { upstreamKinds, useResponsesFakes } from '../helpers/responses-fake-gateway'

/**
 * The Responses API through the clients that speak it — the official `openai` SDK (raw stream and
 * the `responses.stream()` helper), the OpenAI Agents SDK and the AI SDK's default OpenAI model —
 * against all four upstream kinds, each a rule-enforcing fake answering as a model, with every
 * stream order-checked and every request's usage metered exactly as its upstream reported it.
 */
const fakes = useResponsesFakes({
  openai: 'gpt-4.1',
  responses: 'gpt-5.1',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
})
setTracingDisabled(true)
// The AI SDK warns, rightly, that it cannot send back reasoning it never got encrypted.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

const weatherParameters = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
} as const

describe.each(upstreamKinds)('Responses clients × %s upstream', (kind) => {
  const model = `model-${kind}`

  it('openai SDK: responses.create({stream: true}) streams text and usage', async () => {
    const mark = fakes.mark()
    const stream = await fakes
      .openaiSdk()
      .responses.create({ model, input: 'Hello!', stream: true })
    let text = ''
    const types: string[] = []
    let usage: unknown
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') usage = event.response.usage
    }
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress'])
    expect(types.at(-1)).toBe('response.completed')
    expect(text).toMatch(/^Answer from /)
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) })
    await fakes.expectExactUsage(mark, 1)
  })

  it('openai SDK: responses.stream() and finalResponse() through a two-turn tool loop', async () => {
    const mark = fakes.mark()
    const client = fakes.openaiSdk()
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        parameters: weatherParameters,
        strict: false,
      },
    ]
    // Stateless, as Codex runs: the reasoning comes back encrypted and goes back in full.
    const stateless = { store: false, include: ['reasoning.encrypted_content' as const] }
    const first = await client.responses
      .stream({ model, input: 'Weather in Paris?', tools, ...stateless })
      .finalResponse()
    const call = first.output.find((item) => item.type === 'function_call')
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' })
    if (call?.type !== 'function_call') throw new Error('no call')
    expect(JSON.parse(call.arguments)).toHaveProperty('city')
    const second = await client.responses
      .stream({
        model,
        tools,
        ...stateless,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          ...(first.output.filter((item) => item.type !== 'message') as ResponseInputItem[]),
          { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 24 °C' },
        ],
      })
      .finalResponse()
    expect(second.status).toBe('completed')
    expect(second.output_text).toMatch(/^Answer from /)
    await fakes.expectExactUsage(mark, 2)
  })

  it('openai SDK: responses.parse() with a zod text format gets JSON that fits the schema', async () => {
    const mark = fakes.mark()
    const capital = z.object({ city: z.string(), population: z.number() })
    const parsed = await fakes.openaiSdk().responses.parse({
      model,
      input: 'The capital of France, as JSON.',
      text: { format: zodTextFormat(capital, 'capital') },
    })
    expect(capital.parse(parsed.output_parsed)).toEqual(parsed.output_parsed)
    await fakes.expectExactUsage(mark, 1)
  })

  it('@openai/agents: a run with a tool', async () => {
    const mark = fakes.mark()
    const calls: string[] = []
    const getWeather = agentTool({
      name: 'get_weather',
      description: 'The weather in a city.',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        calls.push(city)
        return `Sunny in ${city}`
      },
    })
    const agent = new Agent({
      name: 'Weather',
      instructions: 'Answer with the weather.',
      tools: [getWeather],
      model: new OpenAIResponsesModel(fakes.openaiSdk(), model),
    })
    const result = await run(agent, 'Weather in Paris?')
    expect(calls).toHaveLength(1)
    expect(String(result.finalOutput)).toMatch(/^Answer from /)
    await fakes.expectExactUsage(mark, 2)
  })

  describe.each([true, false])('@ai-sdk/openai responses model, store: %s', (store) => {
    const provider = createOpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fakes.fetch,
    })
    const tools = {
      get_weather: aiTool({
        description: 'The weather in a city.',
        inputSchema: jsonSchema<{ city: string }>(weatherParameters),
        execute: async ({ city }) => `Sunny in ${city}`,
      }),
    }
    const providerOptions = { openai: { store } }

    it('generateText runs a multi-step tool loop', async () => {
      const mark = fakes.mark()
      const result = await generateText({
        model: provider(model),
        prompt: 'Weather in Paris?',
        tools,
        stopWhen: stepCountIs(3),
        providerOptions,
      })
      expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop'])
      expect(result.text).toMatch(/^Answer from /)
      expect(result.totalUsage.totalTokens).toBeGreaterThan(0)
      await fakes.expectExactUsage(mark, 2)
    })

    it('streamText runs a multi-step tool loop', async () => {
      const mark = fakes.mark()
      const result = streamText({
        model: provider(model),
        prompt: 'Weather in Paris?',
        tools,
        stopWhen: stepCountIs(3),
        providerOptions,
      })
      let text = ''
      for await (const delta of result.textStream) text += delta
      expect((await result.steps).map((step) => step.finishReason)).toEqual(['tool-calls', 'stop'])
      expect(text).toMatch(/^Answer from /)
      await fakes.expectExactUsage(mark, 2)
    })
  })
})
