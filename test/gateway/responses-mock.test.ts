import Anthropic from '@anthropic-ai/sdk'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter, type GatewayConfig } from '../../src/index'
import { fetchThrough, gatewayUrl, openAIClient } from '../helpers/gateway'

/**
 * The offline demo serves the Responses API: its mock upstream, marked `responses: true`, answers
 * a Responses client by passthrough (JSON and a stream the `openai` SDK's helper accepts, every
 * stream order-checked) and the other protocols by translation, with usage metered.
 */
const demo = JSON.parse(
  readFileSync(new URL('../../examples/gateway.config.json', import.meta.url), 'utf8'),
) as GatewayConfig
const meter = createMemoryUsageMeter()
const gateway = createGateway({
  ...demo,
  // The demo's console section reads its admin token from here (the console is not mounted).
  env: { CONSOLE_ADMIN_TOKEN: 'console-admin-token-0123456789' },
  groups: demo.groups!.map((group) => ({
    ...group,
    upstreams: group.upstreams.map((upstream) => ({ ...upstream, chunkDelayMs: 0 })),
  })),
  usageMeter: meter,
})
const key = demo.keys![0]!.key

describe('the mock upstream speaks the Responses API (the demo config)', () => {
  it('answers responses.create with the echo and usage', async () => {
    const response = await openAIClient(gateway, key).responses.create({
      model: 'demo-responses',
      input: 'Hello, Responses!',
    })
    expect(response.output_text).toBe('You said: Hello, Responses!')
    expect(response.usage?.total_tokens).toBeGreaterThan(0)
    expect(meter.records().at(-1)).toMatchObject({ outcome: 'ok', model: 'demo-responses' })
  })

  it('streams to the responses.stream() helper, finalResponse() holding the whole answer', async () => {
    const stream = openAIClient(gateway, key).responses.stream({
      model: 'demo-responses',
      input: [{ role: 'user', content: 'Stream, please.' }],
    })
    let text = ''
    stream.on('response.output_text.delta', (event) => (text += event.delta))
    const final = await stream.finalResponse()
    expect(text).toBe('You said: Stream, please.')
    expect(final.output_text).toBe(text)
    expect(final.status).toBe('completed')
  })

  it('serves chat-completions and messages clients by translation', async () => {
    const chat = await openAIClient(gateway, key).chat.completions.create({
      model: 'demo-responses',
      messages: [{ role: 'user', content: 'Hi from chat' }],
    })
    expect(chat.choices[0]!.message.content).toBe('You said: Hi from chat')
    const anthropic = new Anthropic({
      apiKey: key,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const message = await anthropic.messages
      .stream({
        model: 'demo-responses',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hi from messages' }],
      })
      .finalMessage()
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'You said: Hi from messages' }),
    ])
  })
})
