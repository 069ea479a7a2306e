import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, Output, streamText, type LanguageModel } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { useFakeUpstreams } from '../helpers/fake-gateway'
import { gatewayUrl, keys } from '../helpers/gateway'

/**
 * The Vercel AI SDK's structured output (`generateText` / `streamText` with `Output.object`, the
 * successor of `generateObject`) through each provider against each group kind — openai,
 * anthropic, gemini and an openai group marked `responses: true`. `@ai-sdk/anthropic` sends
 * `output_config.format` for Claude model names, so a Claude name served by an openai, gemini or
 * Responses group must keep its schema there; `@ai-sdk/google` sends an OpenAPI `responseSchema`;
 * `@ai-sdk/openai` a strict `json_schema` (chat) or a strict `text.format` (its default Responses
 * model). The SDK validates the answer against the schema itself.
 */
const fakes = useFakeUpstreams({
  openai: ['gpt-4o', { name: 'claude-sonnet-4-6', upstreamModel: 'gpt-4o' }],
  anthropic: [
    'claude-sonnet-4-6',
    'claude-3-5-haiku-20241022',
    { name: 'sonnet', upstreamModel: 'claude-sonnet-4-6' },
  ],
  gemini: ['gemini-2.5-flash', { name: 'claude-sonnet-4-6', upstreamModel: 'gemini-2.5-flash' }],
  responses: ['gpt-5-mini', { name: 'claude-sonnet-4-6', upstreamModel: 'gpt-4o' }],
})

const Recipe = z.object({
  name: z.string(),
  servings: z.number(),
  ingredients: z.array(z.object({ item: z.string(), grams: z.number() })),
})
const expected = { name: 'sample', servings: 4.5, ingredients: [{ item: 'sample', grams: 4.5 }] }

const settings = { apiKey: keys.main, fetch: fakes.fetch }
const providers: Record<string, (model: string) => LanguageModel> = {
  '@ai-sdk/openai': (model) =>
    createOpenAI({ ...settings, baseURL: `${gatewayUrl}/v1` }).chat(model),
  '@ai-sdk/openai responses': (model) =>
    createOpenAI({ ...settings, baseURL: `${gatewayUrl}/v1` })(model),
  '@ai-sdk/anthropic': (model) =>
    createAnthropic({ ...settings, baseURL: `${gatewayUrl}/v1` })(model),
  '@ai-sdk/google': (model) =>
    createGoogleGenerativeAI({ ...settings, baseURL: `${gatewayUrl}/v1beta` })(model),
}

const cases: Array<[string, string, string]> = [
  ['@ai-sdk/openai', 'o/gpt-4o', 'openai (passthrough)'],
  ['@ai-sdk/openai', 'a/claude-sonnet-4-6', 'anthropic'],
  ['@ai-sdk/openai', 'a/claude-3-5-haiku-20241022', 'anthropic, answer tool'],
  ['@ai-sdk/openai', 'g/gemini-2.5-flash', 'gemini'],
  ['@ai-sdk/openai', 'r/gpt-5-mini', 'responses'],
  ['@ai-sdk/openai responses', 'r/gpt-5-mini', 'responses (passthrough)'],
  ['@ai-sdk/openai responses', 'o/gpt-4o', 'openai'],
  ['@ai-sdk/openai responses', 'a/claude-sonnet-4-6', 'anthropic'],
  ['@ai-sdk/openai responses', 'a/claude-3-5-haiku-20241022', 'anthropic, answer tool'],
  ['@ai-sdk/openai responses', 'g/gemini-2.5-flash', 'gemini'],
  ['@ai-sdk/anthropic', 'a/claude-sonnet-4-6', 'anthropic (passthrough)'],
  ['@ai-sdk/anthropic', 'o/claude-sonnet-4-6', 'openai'],
  ['@ai-sdk/anthropic', 'g/claude-sonnet-4-6', 'gemini'],
  ['@ai-sdk/anthropic', 'r/claude-sonnet-4-6', 'responses'],
  // `@ai-sdk/google` reads a model with a slash as a resource path, so it uses plain call names.
  ['@ai-sdk/google', 'gemini-2.5-flash', 'gemini (passthrough)'],
  ['@ai-sdk/google', 'gpt-4o', 'openai'],
  ['@ai-sdk/google', 'sonnet', 'anthropic'],
  ['@ai-sdk/google', 'gpt-5-mini', 'responses'],
]

describe.each(cases)('%s → %s (%s group)', (provider, model) => {
  it('generateText with Output.object returns a valid object', async () => {
    const result = await generateText({
      model: providers[provider]!(model),
      prompt: 'Give me a recipe.',
      output: Output.object({ schema: Recipe }),
    })
    expect(result.output).toEqual(expected)
  })

  it('streamText with Output.object returns a valid object', async () => {
    const result = streamText({
      model: providers[provider]!(model),
      prompt: 'Give me a recipe.',
      output: Output.object({ schema: Recipe }),
    })
    expect(await result.output).toEqual(expected)
  })
})
