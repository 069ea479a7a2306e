import { describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { anthropicTextFrames } from '../helpers/anthropic-upstream'
import { buildGateway, keys, openAIClient } from '../helpers/gateway'
import { chatCompletion, chatStreamFrames } from '../helpers/upstream'
import { anthropicCalls, anthropicClient, gateway, openai, upstreams } from './anthropic-setup'

describe('the request id, sent upstream', () => {
  it('reaches an OpenAI upstream as x-client-request-id and x-request-id, equal to the answer’s', async () => {
    const { gateway: handler, events } = gateway()
    openai.answer({ kind: 'json', body: chatCompletion('ok') })
    const completion = await openAIClient(handler).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    })
    const call = openai.lastCall()
    // The SDK exposes the gateway's x-request-id; the upstream logged the same id.
    expect(completion._request_id).toBe(events.at(-1)!.requestId)
    expect(call.headers.get('x-client-request-id')).toBe(completion._request_id)
    expect(call.headers.get('x-request-id')).toBe(completion._request_id)
  })

  it('is never replaced by the ids a client sends', async () => {
    const { gateway: handler } = gateway()
    openai.answer({ kind: 'sse', frames: chatStreamFrames(['a'], { includeUsage: true }) })
    const stream = await openAIClient(handler).chat.completions.create(
      { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-client-request-id': 'client-chosen', 'x-request-id': 'client-chosen' } },
    )
    for await (const chunk of stream) void chunk
    const call = openai.lastCall()
    expect(call.headers.get('x-client-request-id')).toMatch(/^req_test_\d+$/)
    expect(call.headers.get('x-request-id')).toMatch(/^req_test_\d+$/)
  })

  it('reaches an Anthropic upstream on messages, streams and count_tokens', async () => {
    const { gateway: handler, events } = gateway()
    const client = anthropicClient(handler)
    await client.messages.create({
      model: 'sonnet',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    })
    upstreams.anthropic = { kind: 'sse', frames: anthropicTextFrames(['a']) }
    await client.messages
      .stream({ model: 'sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage()
    await client.messages.countTokens({
      model: 'sonnet',
      messages: [{ role: 'user', content: 'hi' }],
    })
    const sent = anthropicCalls.slice(-3).map((call) => call.headers.get('x-client-request-id'))
    expect(sent).toEqual(events.slice(-3).map((event) => event.requestId))
  })

  it('reaches an upstream of another protocol on a translated call', async () => {
    const { gateway: handler, events } = gateway()
    await openAIClient(handler).chat.completions.create({
      model: 'sonnet',
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(anthropicCalls.at(-1)!.headers.get('x-request-id')).toBe(events.at(-1)!.requestId)
  })

  it('is left out when a custom generateId makes one OpenAI would refuse', async () => {
    const { gateway: handler } = buildGateway({ generateId: () => `req_${'é'.repeat(8)}` })
    openai.answer({ kind: 'json', body: chatCompletion('ok') })
    const completion = await openAIClient(handler, keys.main).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(completion.choices[0]?.message.content).toBe('ok')
    expect(openai.lastCall().headers.get('x-client-request-id')).toBeNull()
  })

  it('cannot be put on forwardHeaders', () => {
    expect(() =>
      createGateway({
        groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [{ provider: 'mock' }] }],
        keys: [{ key: keys.main }],
        forwardHeaders: ['X-Request-Id', 'x-client-request-id'],
      }),
    ).toThrow(
      /forwardHeaders\[0\]: the gateway sends its own request id in this header[\s\S]*forwardHeaders\[1\]/,
    )
  })
})
