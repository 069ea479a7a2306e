import { describe, expect, it } from 'vitest'
import { createGateway, createHttpProvider, type GatewayConfig } from '../../src/index'

const key = 'sk-test-live-secrets-0123456789abcdef'

/**
 * A kind whose `sign` hook fetches a short-lived token (as the cloud kinds do) declares it through
 * a `secrets` function: an upstream error that quotes the token it was sent never reaches the
 * client, before and after the token is refreshed.
 */
describe('secrets obtained while the gateway runs', () => {
  it('are scrubbed from upstream errors, the refreshed token too', async () => {
    let tokens: readonly string[] = ['ya29.first-short-lived-token-0123456789']
    let calls = 0
    const provider = createHttpProvider({
      id: 'live',
      protocol: 'openai',
      baseUrl: 'http://upstream.test/v1',
      secrets: () => tokens,
      sign: (request) => {
        calls += 1
        request.headers['authorization'] = `Bearer ${tokens[0]}`
        return request
      },
      fetch: async (_input, init) =>
        Response.json(
          {
            error: {
              message: `Request had invalid authentication credentials: ${(init!.headers as Record<string, string>)['authorization']}`,
              type: 'invalid_request_error',
            },
          },
          { status: 400 },
        ),
    })
    const gateway = createGateway({
      groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [provider] }],
      keys: [{ key }],
    } as unknown as GatewayConfig)
    const ask = () =>
      gateway(
        new Request('http://gateway.test/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
        }),
      )
    const first = await (await ask()).text()
    expect(calls).toBeGreaterThan(0)
    expect(first).toContain('[redacted]')
    expect(first).not.toContain('first-short-lived')
    expect(first).toContain('invalid authentication credentials')
    // The token is refreshed: a new array, so a new list to scrub.
    tokens = ['ya29.second-short-lived-token-9876543210']
    const second = await (await ask()).text()
    expect(second).toContain('[redacted]')
    expect(second).not.toContain('second-short-lived')
    expect(second).toContain('invalid authentication credentials')
  })
})
