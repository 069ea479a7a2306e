import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, it } from 'vitest'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'

const unknownKey = 'sk-unknown-0123456789abcdefXYZW'

/** Calls `GET /v1/models` with the given credentials; returns the status and the key charged. */
async function callWith(headers: Record<string, string>, query = '') {
  const { gateway, events } = buildGateway()
  const response = await gateway(new Request(`${gatewayUrl}/v1/models${query}`, { headers }))
  return { status: response.status, key: events.at(-1)?.key }
}

const masked = (key: string) => `sk-…${key.slice(-4)}`

describe('credential precedence: Bearer, then x-api-key, then x-goog-api-key, then ?key=', () => {
  it.each([
    [
      'Bearer over x-api-key',
      { authorization: `Bearer ${keys.main}`, 'x-api-key': keys.gptOnly },
      '',
      200,
      keys.main,
    ],
    [
      'x-api-key over x-goog-api-key',
      { 'x-api-key': keys.gptOnly, 'x-goog-api-key': keys.main },
      '',
      200,
      keys.gptOnly,
    ],
    [
      'x-goog-api-key over ?key=',
      { 'x-goog-api-key': keys.main },
      `?key=${unknownKey}`,
      200,
      keys.main,
    ],
    [
      'Bearer over ?key=',
      { authorization: `Bearer ${keys.main}` },
      `?key=${unknownKey}`,
      200,
      keys.main,
    ],
    [
      'an Authorization that is not Bearer is ignored',
      { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': keys.main },
      '',
      200,
      keys.main,
    ],
  ])('%s', async (_, headers, query, status, charged) => {
    expect(await callWith(headers, query)).toEqual({ status, key: masked(charged) })
  })

  it.each([
    ['an unknown Bearer', { authorization: `Bearer ${unknownKey}`, 'x-api-key': keys.main }, ''],
    ['an unknown x-api-key', { 'x-api-key': unknownKey, 'x-goog-api-key': keys.main }, ''],
    ['an unknown x-goog-api-key', { 'x-goog-api-key': unknownKey }, `?key=${keys.main}`],
    ['a disabled Bearer', { authorization: `Bearer ${keys.disabled}`, 'x-api-key': keys.main }, ''],
  ])('never falls back past %s to another credential', async (_, headers, query) => {
    expect(await callWith(headers, query)).toEqual({ status: 401, key: expect.any(String) })
  })

  it('serves an Anthropic SDK that sends a gateway auth token beside an Anthropic key', async () => {
    // As Claude Code does with ANTHROPIC_AUTH_TOKEN, while a wrapper adds a stale `x-api-key`: the
    // Bearer token is the one used, and the other is never tried.
    const { gateway, events } = buildGateway()
    let sent = new Headers()
    const client = new Anthropic({
      authToken: keys.main,
      defaultHeaders: { 'x-api-key': 'sk-ant-api03-a-real-anthropic-key-0000000000' },
      baseURL: gatewayUrl,
      fetch: (input, init) => {
        sent = new Headers(init?.headers)
        return fetchThrough(gateway)(input, init)
      },
      maxRetries: 0,
    })
    const models = await client.models.list()
    expect(models.data.map((model) => model.id)).toContain('demo-echo')
    expect(sent.get('authorization')).toBe(`Bearer ${keys.main}`)
    expect(sent.get('x-api-key')).toMatch(/^sk-ant-api03-/)
    expect(events.at(-1)?.key).toBe(masked(keys.main))
  })
})
