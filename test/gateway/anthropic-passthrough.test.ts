import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, it } from 'vitest'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicTextFrames,
} from '../helpers/anthropic-upstream'
import { buildGateway, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import {
  anthropicCalls,
  anthropicClient,
  gateway,
  lastAnthropicBody,
  openai,
  upstreams,
} from './anthropic-setup'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

describe('messages client × anthropic group (passthrough)', () => {
  it('relays messages.create byte for byte but for the model, with the group key and the client version headers', async () => {
    const { gateway: handler, meter } = gateway()
    const message = await anthropicClient(handler).messages.create(
      { model: 'sonnet', max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] },
      { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } },
    )
    expect(message.content).toEqual([{ type: 'text', text: 'Hi from Claude' }])
    const call = anthropicCalls.at(-1)!
    expect(call.url).toBe(`${anthropicBaseUrl}/v1/messages`)
    expect(call.headers.get('x-api-key')).toBe(anthropicApiKey)
    expect(call.headers.get('authorization')).toBeNull()
    expect(call.headers.get('anthropic-version')).toBeTruthy()
    expect(call.headers.get('anthropic-beta')).toBe('prompt-caching-2024-07-31')
    expect(lastAnthropicBody()['model']).toBe('claude-sonnet-4-5')
    expect(meter.records().at(-1)?.usage).toEqual({
      inputTokens: 35,
      outputTokens: 12,
      cachedInputTokens: 10,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 47,
    })
  })

  it('streams with messages.stream() and finalMessage(), metering cumulative usage', async () => {
    const { gateway: handler, meter } = gateway()
    upstreams.anthropic = { kind: 'sse', frames: anthropicTextFrames(['Hel', 'lo']) }
    const stream = anthropicClient(handler).messages.stream({
      model: 'claude-sonnet',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    const final = await stream.finalMessage()
    expect(final.content).toEqual(
      [{ type: 'text', text: 'Hello', citations: null }].map(({ citations, ...rest }) =>
        citations === null ? rest : rest,
      ),
    )
    expect(meter.records().at(-1)).toMatchObject({
      outcome: 'ok',
      usage: { inputTokens: 42, outputTokens: 2, cachedInputTokens: 7 },
    })
  })

  it('answers count_tokens from the upstream, with or without ?beta=true', async () => {
    const { gateway: handler } = gateway()
    const client = anthropicClient(handler)
    expect(
      await client.messages.countTokens({
        model: 'claude-sonnet',
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).toEqual({ input_tokens: 42 })
    expect(
      await client.beta.messages.countTokens({
        model: 'claude-sonnet',
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).toEqual({ input_tokens: 42 })
    expect(anthropicCalls.at(-1)?.url).toBe(`${anthropicBaseUrl}/v1/messages/count_tokens`)
  })

  it('forwards a count_tokens body byte for byte when the model needs no rewrite, without gateway-tagged thinking', async () => {
    const { gateway: handler } = gateway()
    const text =
      '{ "model" : "claude-sonnet", "messages": [{"role":"user","content":"Hi"}], "x_field": 1.50 }'
    await handler(
      new Request(`${gatewayUrl}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': keys.main },
        body: text,
      }),
    )
    expect(anthropicCalls.at(-1)!.body).toBe(text)
    const tagged = JSON.stringify({
      model: 'claude-sonnet',
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'x', signature: 'gw1.unsigned' },
            { type: 'text', text: 'Hello' },
          ],
        },
        { role: 'user', content: 'Again' },
      ],
    })
    await handler(
      new Request(`${gatewayUrl}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': keys.main },
        body: tagged,
      }),
    )
    expect(anthropicCalls.at(-1)!.body).not.toContain('gw1.unsigned')
  })

  it('keeps an upstream 529 as 529 overloaded_error', async () => {
    const { gateway: handler } = gateway()
    upstreams.anthropic = {
      kind: 'error',
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    }
    const error = await anthropicClient(handler)
      .messages.create({
        model: 'claude-sonnet',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.InternalServerError)
    expect(error).toMatchObject({
      status: 529,
      error: { type: 'error', error: { type: 'overloaded_error' } },
    })
  })

  it('throws after the partial text when the upstream stream fails', async () => {
    const { gateway: handler, meter } = gateway()
    upstreams.anthropic = {
      kind: 'sse',
      frames: anthropicTextFrames(['partial ', 'text'], { failAfterText: true }),
    }
    const stream = anthropicClient(handler).messages.stream({
      model: 'claude-sonnet',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    let text = ''
    stream.on('text', (delta) => void (text += delta))
    await expect(stream.finalMessage()).rejects.toMatchObject({
      error: { error: { type: 'overloaded_error' } },
    })
    expect(text).toBe('partial text')
    expect(meter.records().at(-1)?.outcome).toBe('error')
  })
})

describe('messages client errors', () => {
  it('answers a bad key with 401 authentication_error', async () => {
    const { gateway: handler } = gateway()
    const error = await anthropicClient(handler, 'sk-nope-0123456789abcdefghij')
      .messages.create({
        model: 'claude-sonnet',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError)
    expect(error).toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    })
  })

  it('answers a missing max_tokens with 400 invalid_request_error', async () => {
    const { gateway: handler } = gateway()
    const error = await anthropicClient(handler)
      .messages.create({
        model: 'claude-sonnet',
        messages: [{ role: 'user', content: 'x' }],
      } as never)
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect(error).toMatchObject({
      error: {
        error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
      },
    })
  })

  it('answers count_tokens on an openai group with 404 not_found_error, without calling any upstream', async () => {
    const { gateway: handler, events } = gateway()
    const callsBefore = openai.calls.length + anthropicCalls.length
    const error = await anthropicClient(handler)
      .messages.countTokens({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
    expect(error).toMatchObject({ error: { type: 'error', error: { type: 'not_found_error' } } })
    expect(openai.calls.length + anthropicCalls.length).toBe(callsBefore)
    expect(events.at(-1)).toMatchObject({ route: 'count_tokens', status: 404 })
    expect(events.at(-1)?.provider).toBeUndefined()
  })

  it('answers an exhausted quota with 429 rate_limit_error', async () => {
    const { gateway: handler } = gateway()
    const client = anthropicClient(handler, keys.limited)
    await client.messages.create({
      model: 'claude-sonnet',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
    })
    const error = await client.messages
      .create({ model: 'claude-sonnet', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
  })
})

describe('the mock upstream in an anthropic group', () => {
  it('answers the Anthropic SDK: create, stream and count_tokens', async () => {
    const { gateway: handler } = buildGateway({
      groups: [
        {
          id: 'demo',
          protocol: 'anthropic',
          models: ['demo-claude'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [{ key: keys.main }],
    })
    const client = anthropicClient(handler)
    const message = await client.messages.create({
      model: 'demo-claude',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'ping' }],
    })
    expect(message.content).toEqual([{ type: 'text', text: 'You said: ping' }])
    const final = await client.messages
      .stream({
        model: 'demo-claude',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'a stream' }],
      })
      .finalMessage()
    expect(final.content).toMatchObject([{ type: 'text', text: 'You said: a stream' }])
    expect(
      (
        await client.messages.countTokens({
          model: 'demo-claude',
          messages: [{ role: 'user', content: 'count me' }],
        })
      ).input_tokens,
    ).toBeGreaterThan(0)
    const completion = await openAIClient(handler).chat.completions.create({
      model: 'demo-claude',
      messages: [{ role: 'user', content: 'from openai' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: from openai')
  })
})
