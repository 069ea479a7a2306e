import { describe, expect, it } from 'vitest'
import { createGateway, type GatewayConfig } from '../../src/index'
import { gatedUpstreams } from '../helpers/limited-gateway'

/**
 * Issue 33, item 6: a refusal by a level above the key (a team, the organisation, an end user)
 * names the level and its period, with `retry-after` where waiting helps, in each client
 * protocol's error shape. Asked with fetch, not an SDK: the SDKs would wait out a window and retry.
 */
const key = 'sk-level-refusals-0123456789abcdefAB'
const chatBody = { model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }] }

/** One request of each client protocol, as its official SDK sends it. */
const calls = {
  chat: { path: '/v1/chat/completions', auth: 'bearer', body: chatBody },
  responses: { path: '/v1/responses', auth: 'bearer', body: { model: 'gpt-test', input: 'Hi' } },
  messages: {
    path: '/v1/messages',
    auth: 'x-api-key',
    body: { model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] },
  },
  gemini: {
    path: '/v1beta/models/gemini-test:generateContent',
    auth: 'x-goog-api-key',
    body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
  },
} as const

function caller(config: GatewayConfig) {
  const gateway = createGateway(config)
  return async (name: keyof typeof calls, headers: Record<string, string> = {}) => {
    const call = calls[name]
    const auth: Record<string, string> =
      call.auth === 'bearer' ? { authorization: `Bearer ${key}` } : { [call.auth]: key }
    const response = await gateway(
      new Request(`http://gateway.test${call.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...headers },
        body: JSON.stringify(call.body),
      }),
    )
    return { response, body: (await response.json()) as Record<string, any> }
  }
}

/** The message of an error body, whichever protocol's shape it has. */
const messageOf = (body: Record<string, any>): string => String(body['error']['message'])

describe('a refusal by a level above the key', () => {
  it("names the team's window in each protocol's shape, with retry-after", async () => {
    const upstream = gatedUpstreams()
    const ask = caller({
      groups: upstream.groups,
      teams: [{ id: 'slow', limits: { requestsPerMinute: 1 } }],
      keys: [{ key, id: 'member', team: 'slow' }],
    })
    expect((await ask('chat')).response.status).toBe(200)
    const shapes = {
      chat: { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } },
      responses: { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } },
      messages: { type: 'error', error: { type: 'rate_limit_error' } },
      gemini: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } },
    }
    for (const name of Object.keys(shapes) as (keyof typeof shapes)[]) {
      const { response, body } = await ask(name)
      expect(response.status, name).toBe(429)
      expect(body, name).toMatchObject(shapes[name])
      expect(messageOf(body), name).toContain(
        'Rate limit reached for requests per minute (requestsPerMinute) (Team "slow"): limit 1.',
      )
      // The bucket refills in a minute: waiting helps, and the answer says for how long.
      const seconds = Number(response.headers.get('retry-after'))
      expect(seconds, name).toBeGreaterThan(0)
      expect(seconds, name).toBeLessThanOrEqual(60)
      expect(Number(response.headers.get('retry-after-ms')), name).toBeGreaterThan(0)
      expect(response.headers.get('x-should-retry'), name).toBeNull()
    }
  })

  it("names the organisation's spent daily budget, told not to retry before the day ends", async () => {
    const upstream = gatedUpstreams()
    const ask = caller({
      groups: upstream.groups,
      prices: { '*': { input: 1000, output: 1000, source: 'test', asOf: '2026-11-28' } },
      organisation: { budget: { usd: 0.001, per: 'day' } },
      keys: [{ key, id: 'solo' }],
    })
    // The first request is admitted alone on the remainder, and spends more than the budget.
    expect((await ask('chat')).response.status).toBe(200)
    const untilMidnight = Math.ceil(
      (Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000 - Date.now()) / 1000,
    )
    for (const name of ['messages', 'gemini'] as const) {
      const { response, body } = await ask(name)
      expect(response.status, name).toBe(429)
      expect(messageOf(body), name).toContain(
        'The organisation has spent its daily budget of $0.001 (organisation.budget). It resets at',
      )
      expect(response.headers.get('x-should-retry'), name).toBe('false')
      const seconds = Number(response.headers.get('retry-after'))
      expect(Math.abs(seconds - untilMidnight), name).toBeLessThanOrEqual(2)
    }
  })

  it("names the end user's window, and serves another end user of the key", async () => {
    const upstream = gatedUpstreams()
    const ask = caller({
      groups: upstream.groups,
      keys: [{ key, id: 'app', perUser: { limits: { requestsPerMinute: 1 } } }],
    })
    expect((await ask('gemini', { 'x-gateway-user': 'alice' })).response.status).toBe(200)
    const { response, body } = await ask('gemini', { 'x-gateway-user': 'alice' })
    expect(response.status).toBe(429)
    expect(body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } })
    expect(messageOf(body)).toContain('(End user "alice" of this API key)')
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await ask('gemini', { 'x-gateway-user': 'bob' })).response.status).toBe(200)
  })
})
