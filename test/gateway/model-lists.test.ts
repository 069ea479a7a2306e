import { describe, expect, it } from 'vitest'
import { useFakeUpstreams } from '../helpers/fake-gateway'

/** Clients that size their context from the model list get the profiles' numbers (ML-X-01). */
const fakes = useFakeUpstreams({
  openai: [
    'gpt-4.1',
    { name: 'local', upstreamModel: 'acme-7b', profile: { contextWindow: 32_768 } },
  ],
  anthropic: ['claude-opus-4-7'],
  gemini: ['gemini-2.5-flash', 'gemini-2.0-flash'],
})

describe('model lists carry the profiles’ limits', () => {
  it('GET /v1/models (OpenAI shape) adds context_window and max_output_tokens where known', async () => {
    const page = await fakes.openaiSdk().models.list()
    const byId = Object.fromEntries(page.data.map((model) => [model.id, model]))
    expect(byId['gpt-4.1']).toMatchObject({
      object: 'model',
      owned_by: 'o',
      context_window: 1_047_576,
      max_output_tokens: 32_768,
    })
    // An operator's override is listed; what nobody knows is left out.
    expect(byId['local']).toMatchObject({ context_window: 32_768 })
    expect(byId['local']).not.toHaveProperty('max_output_tokens')
  })

  it('GET /v1/models (Anthropic shape) has max_input_tokens and max_tokens', async () => {
    const models = []
    for await (const model of fakes.anthropicSdk().models.list()) models.push(model)
    expect(models.find((model) => model.id === 'claude-opus-4-7')).toMatchObject({
      type: 'model',
      max_input_tokens: 1_000_000,
      max_tokens: 128_000,
    })
    expect(models.find((model) => model.id === 'local')).toMatchObject({
      max_input_tokens: 32_768,
      max_tokens: null,
    })
  })

  it('GET /v1beta/models has inputTokenLimit, outputTokenLimit and thinking', async () => {
    const genai = fakes.genaiSdk()
    const models = []
    for await (const model of await genai.models.list()) models.push(model)
    expect(models.find((model) => model.name === 'models/gemini-2.5-flash')).toMatchObject({
      inputTokenLimit: 1_048_576,
      outputTokenLimit: 65_536,
      thinking: true,
    })
    expect(models.find((model) => model.name === 'models/gemini-2.0-flash')).toMatchObject({
      outputTokenLimit: 8_192,
      thinking: false,
    })
    expect(await genai.models.get({ model: 'claude-opus-4-7' })).toMatchObject({
      inputTokenLimit: 1_000_000,
      outputTokenLimit: 128_000,
      thinking: true,
    })
  })
})
