import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  type RequestEvent,
  type UpstreamProvider,
} from '../../src/index'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { keys } from '../helpers/gateway'
import { chatStreamFrames } from '../helpers/upstream'

const served: ServedGateway[] = []
afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.close()))
})

const encoder = new TextEncoder()

/** An OpenAI upstream whose streams stay open after their first chunks until the test ends them. */
function heldUpstream() {
  const streams: Array<{ finish(): void }> = []
  const provider: UpstreamProvider = {
    id: 'held',
    protocol: 'openai',
    async send(call) {
      const frames = chatStreamFrames(['held ', 'stream'], { includeUsage: true })
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(frames[0]! + frames[1]!))
          streams.push({
            finish() {
              for (const frame of frames.slice(2)) controller.enqueue(encoder.encode(frame))
              controller.close()
            },
          })
          call.signal.addEventListener('abort', () => controller.error(call.signal.reason))
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    },
  }
  return { provider, streams }
}

async function serveWithLimit(maxInFlight?: number) {
  const upstream = heldUpstream()
  const events: RequestEvent[] = []
  const meter = createMemoryUsageMeter()
  const gateway = createGateway({
    groups: [
      { id: 'held', protocol: 'openai', models: ['held-model'], upstreams: [upstream.provider] },
      { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: ['claude-echo'],
        upstreams: [{ provider: 'mock' }],
      },
      { id: 'gem', protocol: 'gemini', models: ['gemini-echo'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [{ key: keys.main }],
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
    usageMeter: meter,
    onEvent: (event) => events.push(event),
  })
  const server = await serveGateway(gateway, { port: 0 })
  served.push(server)
  const openai = new OpenAI({ apiKey: keys.main, baseURL: `${server.url}/v1`, maxRetries: 0 })
  return { ...server, upstream, events, meter, openai }
}

/** Opens a held stream and reads its first chunk, so that it is in flight for sure. */
async function openHeldStream(openai: OpenAI, signal?: AbortSignal) {
  const stream = await openai.chat.completions.create(
    { model: 'held-model', stream: true, messages: [{ role: 'user', content: 'hold' }] },
    { signal },
  )
  const iterator = stream[Symbol.asyncIterator]()
  await iterator.next()
  return iterator
}

const hi = [{ role: 'user' as const, content: 'hi' }]

describe('maxInFlight', () => {
  it('answers past the limit at once, in each protocol, with retry-after', async () => {
    const { url, openai, events } = await serveWithLimit(2)
    await openHeldStream(openai)
    await openHeldStream(openai)

    const openaiError = await openai.chat.completions
      .create({ model: 'demo-echo', messages: hi })
      .catch((error: unknown) => error)
    expect(openaiError).toBeInstanceOf(OpenAI.APIError)
    expect(openaiError).toMatchObject({ status: 503, code: 'overloaded', type: 'server_error' })
    expect((openaiError as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe(
      '1',
    )

    const anthropic = new Anthropic({ apiKey: keys.main, baseURL: url, maxRetries: 0 })
    const anthropicError = await anthropic.messages
      .create({ model: 'claude-echo', max_tokens: 10, messages: hi })
      .catch((error: unknown) => error)
    expect(anthropicError).toBeInstanceOf(Anthropic.APIError)
    expect(anthropicError).toMatchObject({
      status: 529,
      error: { type: 'error', error: { type: 'overloaded_error' } },
    })
    expect(
      (anthropicError as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after'),
    ).toBe('1')

    const google = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: url } })
    const googleError = await google.models
      .generateContent({ model: 'gemini-echo', contents: 'hi' })
      .catch((error: unknown) => error)
    expect(googleError).toMatchObject({ status: 503 })
    expect(String((googleError as Error).message)).toContain('UNAVAILABLE')

    expect(events.map((event) => [event.route, event.status, event.outcome])).toEqual([
      ['chat.completions', 503, 'error'],
      ['messages', 529, 'error'],
      ['gemini.generate', 503, 'error'],
    ])
  })

  it('counts a stream until it ends, however it ends', async () => {
    const { openai, upstream } = await serveWithLimit(2)
    const finished = await openHeldStream(openai)
    const abandon = new AbortController()
    await openHeldStream(openai, abandon.signal)
    await expect(
      openai.chat.completions.create({ model: 'demo-echo', messages: hi }),
    ).rejects.toMatchObject({
      status: 503,
    })

    // One stream ends normally, the other is abandoned by its client: both slots come back.
    upstream.streams[0]!.finish()
    while (!(await finished.next()).done);
    abandon.abort()
    await openHeldStream(openai)
    await vi.waitFor(async () => {
      const completion = await openai.chat.completions.create({ model: 'demo-echo', messages: hi })
      expect(completion.choices[0]?.message.content).toBe('You said: hi')
    })
  })

  it('admits every request when no limit is set', async () => {
    const { openai } = await serveWithLimit()
    const streams = await Promise.all([1, 2, 3, 4].map(() => openHeldStream(openai)))
    expect(streams).toHaveLength(4)
    const completion = await openai.chat.completions.create({ model: 'demo-echo', messages: hi })
    expect(completion.choices[0]?.message.content).toBe('You said: hi')
  })
})
