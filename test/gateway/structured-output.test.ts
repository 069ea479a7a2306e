import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod'
import { Type } from '@google/genai'
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { useFakeUpstreams, type GroupKind } from '../helpers/fake-gateway'

/**
 * Structured output through every client × group cell — chat completions, messages, Gemini native
 * and Responses clients against openai, anthropic, gemini and Responses-marked openai groups: each
 * SDK asks for an answer in a schema with its own helper, the gateway carries the schema in the
 * form the upstream model takes (OpenAI `json_schema` or `json_object` plus instruction; Anthropic
 * `output_config.format` or a forced answer tool; Gemini `responseJsonSchema`; Responses
 * `text.format`), and the answer comes back as JSON text that parses and validates against the
 * schema — JSON and stream. The fakes answer with a value of the schema they were sent, so a
 * schema lost on the way fails validation.
 */
const fakes = useFakeUpstreams({
  openai: ['gpt-4o', 'deepseek-chat'],
  anthropic: ['claude-sonnet-4-6', 'claude-3-5-haiku-20241022'],
  gemini: ['gemini-2.5-flash'],
  responses: ['gpt-4o', 'gpt-5-mini'],
})

const Weather = z.object({
  city: z.string(),
  temperature: z.number(),
  conditions: z.enum(['sunny', 'rainy', 'cloudy']),
  tags: z.array(z.string()),
})
const weatherSchema = z.toJSONSchema(Weather) as Record<string, unknown>
const question = 'What is the weather in Paris? Answer in the schema.'

type Ask = (model: string, stream: boolean) => Promise<unknown>

const clients: Record<GroupKind, Ask> = {
  openai: async (model, stream) => {
    const client = fakes.openaiSdk()
    const params = {
      model,
      messages: [{ role: 'user' as const, content: question }],
      response_format: zodResponseFormat(Weather, 'weather'),
    }
    const completion = stream
      ? await client.chat.completions.stream(params).finalChatCompletion()
      : await client.chat.completions.parse(params)
    expect(completion.choices[0]!.finish_reason).toBe('stop')
    return completion.choices[0]!.message.parsed
  },
  anthropic: async (model, stream) => {
    const client = fakes.anthropicSdk()
    const params = {
      model,
      max_tokens: 1024,
      messages: [{ role: 'user' as const, content: question }],
      output_config: { format: zodOutputFormat(Weather) },
    }
    const message = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.parse(params)
    expect(message.stop_reason).toBe('end_turn')
    expect(message.content.map((block) => block.type)).toEqual(['text'])
    const text = message.content[0]!.type === 'text' ? message.content[0]!.text : ''
    return JSON.parse(text)
  },
  gemini: async (model, stream) => {
    const genai = fakes.genaiSdk()
    const request = {
      model,
      contents: question,
      config: { responseMimeType: 'application/json', responseJsonSchema: weatherSchema },
    }
    if (!stream) return JSON.parse((await genai.models.generateContent(request)).text ?? '')
    let text = ''
    for await (const chunk of await genai.models.generateContentStream(request))
      text += chunk.text ?? ''
    return JSON.parse(text)
  },
  responses: async (model, stream) => {
    const client = fakes.openaiSdk()
    const params = {
      model,
      input: question,
      text: { format: zodTextFormat(Weather, 'weather') },
    }
    const response = stream
      ? await client.responses.stream(params).finalResponse()
      : await client.responses.parse(params)
    expect(response.status).toBe('completed')
    return response.output_parsed
  },
}

/** The group models, pinned: `<group>/<model>`. */
const targets: Record<GroupKind, string[]> = {
  openai: ['o/gpt-4o', 'o/deepseek-chat'],
  anthropic: ['a/claude-sonnet-4-6', 'a/claude-3-5-haiku-20241022'],
  gemini: ['g/gemini-2.5-flash'],
  responses: ['r/gpt-4o', 'r/gpt-5-mini'],
}
/**
 * Passthrough keeps the client's own request, so a client asks each model as it takes it: these
 * two models refuse the schema forms an OpenAI or Anthropic client would send them directly.
 */
const passthroughOnlyUnsupported = new Set([
  'openai o/deepseek-chat',
  'anthropic a/claude-3-5-haiku-20241022',
])

const kinds: GroupKind[] = ['openai', 'anthropic', 'gemini', 'responses']
const cells = kinds.flatMap((client) =>
  kinds.flatMap((group) =>
    targets[group]
      .filter((model) => !passthroughOnlyUnsupported.has(`${client} ${model}`))
      .map((model) => [client, group, model] as const),
  ),
)

describe.each(cells)('%s client × %s group, %s', (client, group, model) => {
  it.each([false, true])('answers in the schema (stream: %s)', async (stream) => {
    const answer = await clients[client](model, stream)
    expect(Weather.parse(answer)).toEqual({
      city: 'sample',
      temperature: 4.5,
      conditions: 'sunny',
      tags: ['sample'],
    })
    const sent = fakes.lastBody(group)
    if (group === 'anthropic' && model.includes('haiku') && client !== 'anthropic') {
      // Claude 3.5 Haiku has no native structured output: a forced answer tool carries it.
      expect(sent['tool_choice']).toEqual({
        type: 'tool',
        name: 'json_answer',
        disable_parallel_tool_use: true,
      })
    }
    if (group === 'openai' && model.includes('deepseek'))
      expect(sent['response_format']).toEqual({ type: 'json_object' })
    // The SDK helpers of both OpenAI APIs ask for strict mode; translated, it is kept.
    if (group === 'openai' && client === 'responses' && model === 'o/gpt-4o')
      expect(sent['response_format']['json_schema']['strict']).toBe(true)
    if (group === 'responses' && client === 'openai')
      expect(sent['text']['format']['strict']).toBe(true)
    if (group === 'responses')
      expect(sent['text']['format']).toMatchObject({
        type: 'json_schema',
        schema: expect.objectContaining({ type: 'object' }),
      })
  })
})

describe('a Gemini client’s OpenAPI responseSchema', () => {
  it.each(['o/gpt-4o', 'a/claude-sonnet-4-6', 'r/gpt-4o'])(
    'reaches %s as a JSON Schema',
    async (model) => {
      const response = await fakes.genaiSdk().models.generateContent({
        model,
        contents: question,
        config: {
          responseMimeType: 'application/json',
          responseSchema: {
            type: Type.OBJECT,
            properties: { city: { type: Type.STRING }, temperature: { type: Type.NUMBER } },
            required: ['city', 'temperature'],
          },
        },
      })
      expect(JSON.parse(response.text ?? '')).toEqual({ city: 'sample', temperature: 4.5 })
    },
  )
})

describe('JSON mode without a schema, from a prompt that never says "JSON"', () => {
  it.each(['o/gpt-4o', 'a/claude-sonnet-4-6', 'g/gemini-2.5-flash', 'r/gpt-4o'])(
    'a Gemini client gets a JSON object from %s',
    async (model) => {
      const response = await fakes.genaiSdk().models.generateContent({
        model,
        contents: 'Describe the weather in Paris.',
        config: { responseMimeType: 'application/json' },
      })
      expect(JSON.parse(response.text ?? '')).toEqual(expect.any(Object))
    },
  )
})

describe('a chat client’s schema name OpenAI would refuse', () => {
  // Straight to OpenAI (passthrough) the name is the client's business; translated, the gateway's.
  it.each(['r/gpt-4o'])('is made OpenAI-safe toward %s, strict kept', async (model) => {
    const completion = await fakes.openaiSdk().chat.completions.create({
      model,
      messages: [{ role: 'user', content: question }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'weather report', schema: weatherSchema, strict: true },
      },
    })
    expect(Weather.parse(JSON.parse(completion.choices[0]!.message.content ?? ''))).toMatchObject({
      city: 'sample',
    })
    expect(fakes.lastBody('responses')['text']['format']).toMatchObject({
      name: 'weather_report',
      strict: true,
    })
  })
})
