import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { anthropicApiKey, anthropicBaseUrl } from '../helpers/anthropic-upstream'
import { buildGateway, fetchThrough, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import { controlledStream, upstreamApiKey, upstreamBaseUrl } from '../helpers/upstream'
import { anthropicCalls, openai as upstream, upstreams } from './anthropic-setup'

const timers: Array<ReturnType<typeof setInterval>> = []
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer)
})

function deadlineGateway(maxStreamMs: number) {
  return buildGateway({
    groups: [
      {
        id: 'claude',
        protocol: 'anthropic',
        models: ['claude-sonnet'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
    ],
    maxStreamMs,
  })
}

/** An upstream stream that sends its first frames, then only keep-alives, forever. */
function keepAliveForever(first: string[], keepAlive: string) {
  const stream = controlledStream()
  for (const frame of first) stream.push(frame)
  timers.push(
    setInterval(() => {
      try {
        stream.push(keepAlive)
      } catch {
        // Cancelled by the gateway.
      }
    }, 50),
  )
  return stream
}

const anthropicFrame = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

const anthropicStart = [
  anthropicFrame('message_start', {
    message: {
      id: 'msg_01slow',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 1 },
    },
  }),
  anthropicFrame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  anthropicFrame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
]

describe('maxStreamMs', () => {
  it('ends an Anthropic stream of pings with an error event and records the usage seen', async () => {
    const { gateway, meter } = deadlineGateway(400)
    const stream = keepAliveForever(anthropicStart, anthropicFrame('ping', {}))
    upstreams.anthropic = { kind: 'controlled', stream }
    const client = new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    let text = ''
    const started = Date.now()
    const error = await (async () => {
      const events = await client.messages.create({
        model: 'claude-sonnet',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'think forever' }],
      })
      for await (const event of events) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          text += event.delta.text
      }
    })().catch((caught: unknown) => caught)
    expect(text).toBe('Hel')
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect(error).toMatchObject({
      error: { type: 'error', error: { type: 'timeout_error' } },
    })
    expect(Date.now() - started).toBeGreaterThanOrEqual(400)
    // The upstream call was aborted, not left running.
    await vi.waitFor(() => expect(anthropicCalls.at(-1)!.signal.aborted).toBe(true))
    expect(meter.records()).toEqual([
      expect.objectContaining({
        outcome: 'error',
        stream: true,
        usage: expect.objectContaining({ inputTokens: 30, outputTokens: 1 }),
      }),
    ])
  })

  it('ends an OpenAI stream of keep-alive comments with an error event', async () => {
    const { gateway, meter, events } = deadlineGateway(300)
    upstream.answer({
      kind: 'controlled',
      stream: keepAliveForever(
        [
          `data: ${JSON.stringify({
            id: 'chatcmpl-slow',
            object: 'chat.completion.chunk',
            created: 1_763_000_000,
            model: 'gpt-4o-mini',
            choices: [
              { index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null },
            ],
          })}\n\n`,
        ],
        ': keep-alive\n\n',
      ),
    })
    let text = ''
    const error = await (async () => {
      for await (const chunk of await openAIClient(gateway).chat.completions.create({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      }))
        text += chunk.choices[0]?.delta.content ?? ''
    })().catch((caught: unknown) => caught)
    expect(text).toBe('Hi')
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as Error).message).toContain("The stream reached the gateway's time limit.")
    expect(meter.records()[0]).toMatchObject({ outcome: 'error', stream: true })
    expect(events[0]).toMatchObject({ status: 200, outcome: 'error' })
  })

  it('settles the usage at the deadline even when the client has stopped reading', async () => {
    const { gateway, meter, events } = deadlineGateway(300)
    upstreams.anthropic = {
      kind: 'controlled',
      stream: keepAliveForever(anthropicStart, anthropicFrame('ping', {})),
    }
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': keys.main, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'claude-sonnet',
          max_tokens: 100,
          stream: true,
          messages: [{ role: 'user', content: 'x' }],
        }),
      }),
    )
    const reader = response.body!.getReader()
    await reader.read()
    // The client reads nothing more; the record still comes at the deadline.
    await vi.waitFor(() => expect(meter.records()).toHaveLength(1), { timeout: 2_000 })
    expect(meter.records()[0]).toMatchObject({ outcome: 'error', usage: { inputTokens: 30 } })
    expect(events).toHaveLength(1)
    let rest = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += new TextDecoder().decode(value)
    }
    expect(rest).toContain('event: error')
    expect(rest).toContain('"type":"timeout_error"')
  })

  it('answers 504 when the deadline passes before the first event', async () => {
    const { gateway, meter } = deadlineGateway(200)
    upstream.answer({ kind: 'hang' })
    const error = await openAIClient(gateway)
      .chat.completions.create({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' })
    expect((error as Error).message).toContain("The stream reached the gateway's time limit.")
    expect(meter.records()[0]).toMatchObject({ outcome: 'error', status: 504 })
  })

  it('leaves non-stream answers to upstreamTimeoutMs', async () => {
    const { gateway } = deadlineGateway(1)
    upstreams.anthropic = {
      kind: 'json',
      body: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'fine' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    }
    const client = new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const message = await client.messages.create({
      model: 'claude-sonnet',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(message.content).toEqual([{ type: 'text', text: 'fine' }])
  })
})
