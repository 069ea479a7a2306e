import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPriceCatalogue } from '../../src/pricing/price-catalogue'
import { usageCost } from '../../src/pricing/usage-cost'
import { startAzureGateway } from '../helpers/azure-gateway'
import { keys } from '../helpers/gateway'

/**
 * The official SDKs, at their defaults, against Azure OpenAI groups: over the v1 API with an Entra
 * token, over the deployment URLs with an `api-key`, and over the Responses API.
 */
describe('Azure OpenAI through the official clients', () => {
  let azure: Awaited<ReturnType<typeof startAzureGateway>>
  let openai: OpenAI
  let anthropic: Anthropic
  let genai: GoogleGenAI
  beforeAll(async () => {
    azure = await startAzureGateway()
    openai = new OpenAI({ apiKey: keys.main, baseURL: `${azure.url}/v1` })
    anthropic = new Anthropic({ apiKey: keys.main, baseURL: azure.url })
    genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: azure.url } })
  })
  afterAll(() => azure.close())

  const lastCall = () => azure.resourceA.calls.at(-1)!

  it('chat completions go to the v1 API with the deployment as model and a bearer token', async () => {
    const answer = await openai.chat.completions.create({
      model: 'mini',
      messages: [{ role: 'user', content: 'Say hi' }],
    })
    expect(answer.model).toBe('mini')
    expect(answer.choices[0]!.message.content).toBeTruthy()
    const call = lastCall()
    expect(call.path).toBe('/openai/v1/chat/completions')
    expect(call.body.model).toBe('prod-mini')
    expect(call.headers.authorization).toMatch(/^Bearer eyJ/)
    expect(call.headers['api-key']).toBeUndefined()
  })

  it('a stream opening with the prompt filter chunk reaches an OpenAI client whole', async () => {
    const stream = await openai.chat.completions.create({
      model: 'mini',
      messages: [{ role: 'user', content: 'Say hi' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks[0]!.choices).toEqual([])
    expect((chunks[0] as any).prompt_filter_results[0].prompt_index).toBe(0)
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')
    expect(text.length).toBeGreaterThan(0)
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0)
  })

  it('deployment URLs carry the api-version and the api-key', async () => {
    const answer = await openai.chat.completions.create({
      model: 'dated-mini',
      messages: [{ role: 'user', content: 'Say hi' }],
    })
    expect(answer.choices[0]!.finish_reason).toBe('stop')
    const call = lastCall()
    expect(call.path).toBe('/openai/deployments/prod-mini/chat/completions?api-version=2024-10-21')
    expect(call.headers['api-key']).toBe('3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e')
    expect(call.headers.authorization).toBeUndefined()
  })

  it('embeddings go to both URL shapes', async () => {
    const v1 = await openai.embeddings.create({ model: 'embed', input: ['a', 'b'] })
    expect(v1.data).toHaveLength(2)
    expect(lastCall().path).toBe('/openai/v1/embeddings')
    const dated = await openai.embeddings.create({ model: 'dated-embed', input: 'a' })
    expect(dated.data[0]!.embedding.length).toBe(1536)
    expect(lastCall().path).toBe('/openai/deployments/emb-small/embeddings?api-version=2024-10-21')
  })

  it('the Anthropic SDK is served by translation, JSON and stream', async () => {
    const message = await anthropic.messages.create({
      model: 'mini',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hi' }],
    })
    expect(message.stop_reason).toBe('end_turn')
    expect(message.content[0]!.type).toBe('text')
    const stream = anthropic.messages.stream({
      model: 'dated-mini',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hi' }],
    })
    const final = await stream.finalMessage()
    expect(final.content[0]!.type).toBe('text')
    // The prompt filter's empty chunk started nothing: the message id is the answer's own.
    expect(final.id).toMatch(/^msg_|chatcmpl/)
  })

  it('the Google SDK is served by translation, JSON and stream', async () => {
    const answer = await genai.models.generateContent({ model: 'mini', contents: 'Say hi' })
    expect(answer.text).toBeTruthy()
    const stream = await genai.models.generateContentStream({ model: 'mini', contents: 'Say hi' })
    let text = ''
    let finish: string | undefined
    for await (const chunk of stream) {
      text += chunk.text ?? ''
      finish = chunk.candidates?.[0]?.finishReason ?? finish
    }
    expect(text.length).toBeGreaterThan(0)
    expect(finish).toBe('STOP')
  })

  it('the Responses API goes to /openai/v1/responses, JSON and stream', async () => {
    const response = await openai.responses.create({ model: 'resp-mini', input: 'Say hi' })
    expect(response.output_text).toBeTruthy()
    expect(lastCall().path).toBe('/openai/v1/responses')
    expect(lastCall().body.model).toBe('prod-mini')
    const stream = await openai.responses.create({
      model: 'resp-mini',
      input: 'Say hi',
      stream: true,
    })
    const types: string[] = []
    for await (const event of stream) types.push(event.type)
    expect(types.at(-1)).toBe('response.completed')
    // A chat client of the same group is translated to the Responses API.
    const chat = await openai.chat.completions.create({
      model: 'resp-mini',
      messages: [{ role: 'user', content: 'Say hi' }],
    })
    expect(chat.choices[0]!.message.content).toBeTruthy()
    expect(lastCall().path).toBe('/openai/v1/responses')
  })

  it('meters usage and prices a deployment named after its model; another name is unpriced', async () => {
    const listPrice = createPriceCatalogue().lookup('gpt-4o-mini')!
    const before = azure.events.length
    const messages = [{ role: 'user' as const, content: 'What does this cost?' }]
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })
    await anthropic.messages
      .stream({ model: 'gpt-4o-mini', max_tokens: 100, messages })
      .finalMessage()
    await openai.chat.completions.create({ model: 'mini', messages })
    // Events are emitted once the answer is complete: wait for the three.
    const metered = () =>
      azure.events.slice(before).filter((event) => event.upstreamModel !== undefined)
    await expect.poll(() => metered().some((event) => event.model === 'mini')).toBe(true)
    const events = metered()
    const named = events.filter((event) => event.model === 'gpt-4o-mini')
    expect(named.map((event) => event.stream)).toEqual([false, true])
    for (const event of named) {
      expect(event.provider).toBe('az-a') // the upstream's id
      expect(event.usage!.inputTokens).toBeGreaterThan(0)
      expect(event.usage!.outputTokens).toBeGreaterThan(0)
      expect(event.estimated).toBeFalsy()
      expect(event.cost!.nanoUsd).toBeGreaterThan(0)
      expect(event.cost!.nanoUsd).toBe(usageCost(event.usage, listPrice, 1).nanoUsd)
      expect(event.cost!.price).not.toHaveProperty('surcharge')
    }
    const other = events.find((event) => event.model === 'mini')!
    expect(other.upstreamModel).toBe('prod-mini')
    expect(other.usage!.inputTokens).toBeGreaterThan(0)
    expect(other.cost).toBeNull()
  })

  it('a Responses client of a chat-completions Azure group is translated', async () => {
    const response = await openai.responses.create({ model: 'dated-mini', input: 'Say hi' })
    expect(response.status).toBe('completed')
    expect(lastCall().path).toContain('/openai/deployments/prod-mini/chat/completions')
  })
})
