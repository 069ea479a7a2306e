import { ChatAnthropic } from '@langchain/anthropic'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { ChatGoogleGenerativeAI } from '@langchain/google-genai'
import { ChatOpenAI } from '@langchain/openai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { useFakeUpstreams, type GroupKind } from '../helpers/fake-gateway'
import { gatewayUrl, keys } from '../helpers/gateway'

/**
 * LangChain's `withStructuredOutput` — each chat model with its default method (a strict
 * `json_schema` for ChatOpenAI, in chat completions and in the Responses API; a forced tool for
 * ChatAnthropic and ChatGoogleGenerativeAI) — against every group kind. Whatever form the schema
 * takes on the way, the parsed answer validates against it. Requests reach the in-process gateway
 * through the global fetch (msw), as LangChain makes them.
 */
const fakes = useFakeUpstreams({
  openai: ['gpt-4o'],
  anthropic: ['claude-sonnet-4-6'],
  gemini: ['gemini-2.5-flash'],
  responses: ['gpt-5-mini'],
})

const Recipe = z.object({
  name: z.string().describe('The dish'),
  servings: z.number(),
  ingredients: z.array(z.string()),
})

const chatModels: Record<string, (model: string) => BaseChatModel> = {
  'ChatOpenAI (chat completions)': (model) =>
    new ChatOpenAI({
      model,
      apiKey: keys.main,
      maxRetries: 0,
      configuration: { baseURL: `${gatewayUrl}/v1` },
    }),
  'ChatOpenAI (Responses API)': (model) =>
    new ChatOpenAI({
      model,
      apiKey: keys.main,
      maxRetries: 0,
      useResponsesApi: true,
      configuration: { baseURL: `${gatewayUrl}/v1` },
    }),
  ChatAnthropic: (model) =>
    new ChatAnthropic({ model, apiKey: keys.main, maxRetries: 0, anthropicApiUrl: gatewayUrl }),
  ChatGoogleGenerativeAI: (model) =>
    new ChatGoogleGenerativeAI({ model, apiKey: keys.main, maxRetries: 0, baseUrl: gatewayUrl }),
}

const targets: Record<GroupKind, string> = {
  openai: 'gpt-4o',
  anthropic: 'claude-sonnet-4-6',
  gemini: 'gemini-2.5-flash',
  responses: 'gpt-5-mini',
}

const cells = Object.keys(chatModels).flatMap((name) =>
  (Object.keys(targets) as GroupKind[]).map((group) => [name, group] as const),
)

describe.each(cells)('LangChain %s × %s group', (name, group) => {
  it('withStructuredOutput returns an object of the schema', async () => {
    const before = fakes.calls[group].length
    const structured = chatModels[name]!(targets[group]).withStructuredOutput(Recipe)
    const recipe = await structured.invoke('Give me a recipe.')
    expect(Recipe.parse(recipe)).toEqual({ name: 'sample', servings: 4.5, ingredients: ['sample'] })
    expect(fakes.calls[group].length - before).toBe(1)
  })
})
