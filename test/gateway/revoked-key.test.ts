import { beforeAll, describe, expect, it } from 'vitest'
import { createMemoryKeyAdmin } from '../../src/console/memory-key-admin'
import { createGateway, type GatewayHandler, type RequestEvent } from '../../src/index'

/**
 * A revoked key is told it was revoked — not "disabled", which sent its holder looking for a
 * switch — in every client protocol's own error shape. The key comes from the console's memory
 * key store, which shares the database store's record (`toKeyRecord`).
 */
let gateway: GatewayHandler
let revokedKey: string
let activeKey: string
beforeAll(async () => {
  const keys = createMemoryKeyAdmin()
  gateway = createGateway({
    groups: [
      { id: 'oa', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
      {
        id: 'an',
        protocol: 'anthropic',
        models: ['claude-echo'],
        upstreams: [{ provider: 'mock' }],
      },
      { id: 'ge', protocol: 'gemini', models: ['gemini-echo'], upstreams: [{ provider: 'mock' }] },
    ],
    keyStore: keys,
  })
  const revoked = await keys.create({ name: 'gone' })
  await keys.revoke(revoked.stored.id)
  revokedKey = revoked.key
  activeKey = (await keys.create({ name: 'here' })).key
})

const message = 'This API key has been revoked.'
const json = { 'content-type': 'application/json' }

/** Each client protocol: a request with the key, and the error body it expects. */
const protocols: Array<[string, (key: string) => Request, unknown]> = [
  [
    'OpenAI chat completions',
    (key) =>
      new Request('http://gateway.test/v1/chat/completions', {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'demo-echo', messages: [{ role: 'user', content: 'Hi' }] }),
      }),
    { error: expect.objectContaining({ message, code: 'invalid_api_key' }) },
  ],
  [
    'OpenAI Responses',
    (key) =>
      new Request('http://gateway.test/v1/responses', {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'demo-echo', input: 'Hi' }),
      }),
    { error: expect.objectContaining({ message, code: 'invalid_api_key' }) },
  ],
  [
    'Anthropic messages',
    (key) =>
      new Request('http://gateway.test/v1/messages', {
        method: 'POST',
        headers: { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'claude-echo',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      }),
    expect.objectContaining({
      type: 'error',
      error: { type: 'authentication_error', message },
    }),
  ],
  [
    'Gemini',
    (key) =>
      new Request('http://gateway.test/v1beta/models/gemini-echo:generateContent', {
        method: 'POST',
        headers: { ...json, 'x-goog-api-key': key },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
      }),
    { error: expect.objectContaining({ code: 401, message, status: 'UNAUTHENTICATED' }) },
  ],
]

describe('a revoked key', () => {
  it.each(protocols)('is told it was revoked, in %s shape', async (_, request, body) => {
    const refused = await gateway(request(revokedKey))
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual(body)
    // The same request with a live key of the same store goes through.
    expect((await gateway(request(activeKey))).status).toBe(200)
  })
})

describe('the key a request event names', () => {
  it("names a database key's id only once the store knows the key, never a forged one's", async () => {
    const keys = createMemoryKeyAdmin()
    const events: RequestEvent[] = []
    const named = createGateway({
      groups: [
        { id: 'oa', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
      ],
      keyStore: keys,
      onEvent: (event) => void events.push(event),
    })
    const real = (await keys.create({ name: 'real' })).key
    const publicId = real.slice(6, 18)
    // The real key's id with a secret of the right shape that its holder never had.
    const forged = `${real.slice(0, 19)}${'Z'.repeat(44)}f0rg`
    for (const key of [forged, real]) {
      await named(protocols[0]![1](key))
    }
    await expect.poll(() => events.length).toBe(2)
    expect(events.map((event) => [event.status, event.key])).toEqual([
      [401, 'sk-…f0rg'],
      [200, `sk-mg-${publicId}-…`],
    ])
  })
})
