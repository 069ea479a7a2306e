import { readFileSync } from 'node:fs'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter } from '../../src/index'
import { everySplit, randomSplit, streamOfChunks } from '../helpers/streams'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'

const fixture = readFileSync(
  new URL('../fixtures/openai/text-stream-usage.sse', import.meta.url),
  'utf8',
)
/**
 * What the client gets: the upstream's bytes, but for the model every chunk names — the call name
 * the client sent, where the upstream wrote its dated snapshot (ADR 0019).
 */
const relayed = fixture.replaceAll('"model":"gpt-4o-mini-2024-07-18"', '"model":"gpt-4o-mini"')

/** A gateway whose upstream answers with the fixture cut into the given chunks. */
function gatewayOver(chunks: () => Uint8Array[]) {
  const meter = createMemoryUsageMeter()
  const gateway = createGateway({
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ baseUrl: 'https://upstream.test/v1' }],
      },
    ],
    keys: [{ key: keys.main }],
    usageMeter: meter,
    fetch: async () =>
      new Response(streamOfChunks(chunks()), { headers: { 'content-type': 'text/event-stream' } }),
  })
  return { gateway, meter }
}

async function relay(chunks: Uint8Array[], includeUsage: boolean) {
  const { gateway, meter } = gatewayOver(() => chunks)
  const response = await gateway(
    new Request(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}` },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      }),
    }),
  )
  return { text: await response.text(), record: meter.records()[0] }
}

describe('chat-completions stream relay at every chunk split', () => {
  it('relays the upstream bytes (the model named as called) and meters the same usage, however the upstream splits them', async () => {
    expect(relayed).not.toBe(fixture)
    const whole = await relay([new TextEncoder().encode(fixture)], true)
    expect(whole.text).toBe(relayed)
    expect(whole.record?.usage).toEqual({
      inputTokens: 19,
      outputTokens: 6,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 25,
    })
    for (const chunks of everySplit(fixture)) {
      const split = await relay(chunks, true)
      expect(split.text).toBe(relayed)
      expect(split.record?.usage).toEqual(whole.record?.usage)
    }
    for (let seed = 1; seed <= 20; seed += 1)
      expect((await relay(randomSplit(fixture, seed), true)).text).toBe(relayed)
  })

  it('drops only the usage-only chunk for a client that did not ask for usage, still metering it', async () => {
    const { text, record } = await relay([new TextEncoder().encode(fixture)], false)
    const usageFrame = relayed.split('\n\n').find((frame) => frame.includes('"choices":[]'))!
    expect(text).toBe(relayed.replace(`${usageFrame}\n\n`, ''))
    expect(record?.usage?.totalTokens).toBe(25)
  })

  it('yields the multi-byte text intact to the openai SDK', async () => {
    const { gateway } = gatewayOver(() => randomSplit(fixture, 7))
    const client = new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('Grüße, 世界 👋🏽 — ok')
  })
})
