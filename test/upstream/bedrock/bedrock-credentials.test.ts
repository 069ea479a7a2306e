import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway, type GatewayHandler, type RequestEvent } from '../../../src/index'
import { createNodeFetch } from '../../../src/node/index'
import { startBedrockFake } from '../../helpers/bedrock/bedrock-fake'
import { keys } from '../../helpers/gateway'

/**
 * Bedrock with short-lived credentials from a callback in code, every call's signature checked by
 * the fake's own verifier: a burst fetches the credentials once, an answer saying the session
 * token expired fetches them again and the call is sent once more, and no secret reaches a client.
 */
const session = {
  accessKeyId: 'ASIAQNZGKEXAMPLE0002',
  secretAccessKey: 'c2VjcmV0LWFjY2Vzcy1rZXktb2YtdGhlLXNlc3Npb24',
  sessionToken: 'IQoJb3JpZ2luX2VjECallbackSessionToken0123456789abcdefghijklmnop',
}
let fake: Awaited<ReturnType<typeof startBedrockFake>>
let gateway: GatewayHandler
let fetches = 0
const events: RequestEvent[] = []

beforeAll(async () => {
  fake = await startBedrockFake({ region: 'ap-southeast-2', credentials: session })
  gateway = createGateway({
    groups: [
      {
        id: 'claude',
        protocol: 'anthropic',
        models: [
          { name: 'claude-haiku', upstreamModel: 'apac.anthropic.claude-haiku-4-5-20251001-v1:0' },
        ],
        upstreams: [
          {
            provider: 'bedrock',
            region: 'ap-southeast-2',
            baseUrl: fake.url,
            credentials: async () => {
              fetches += 1
              await new Promise((resolve) => setTimeout(resolve, 20))
              return { ...session, expiration: new Date(Date.now() + 3_600_000) }
            },
          },
        ],
      },
    ],
    keys: [{ key: keys.main }],
    fetch: createNodeFetch(),
    onEvent: (event) => events.push(event),
  })
})
afterAll(() => fake.close())

const client = () =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: 'http://gateway.test',
    fetch: async (input, init) => gateway(new Request(input, init)),
  })
const ask = () =>
  client().messages.create({
    model: 'claude-haiku',
    max_tokens: 20,
    messages: [{ role: 'user', content: 'Hi' }],
  })

describe('Bedrock with credentials from a callback', () => {
  it('fetches them once for a burst of 200 concurrent calls, each call signed', async () => {
    const before = fake.calls.length
    const answers = await Promise.all(Array.from({ length: 200 }, ask))
    expect(answers.every((answer) => answer.stop_reason === 'end_turn')).toBe(true)
    expect(fetches).toBe(1)
    expect(fake.calls.length - before).toBe(200)
  })

  it('fetches them again when AWS says the token expired, and sends the call once more', async () => {
    fake.nextErrors({
      status: 403,
      errorType: 'ExpiredTokenException',
      message: 'The security token included in the request is expired',
    })
    const answer = await ask()
    expect(answer.stop_reason).toBe('end_turn')
    expect(fetches).toBe(2)
  })

  it("never shows the session's secrets to a client, in an event or in a log", async () => {
    // Every try refused (the SDK's own retries included), AWS quoting the secrets back.
    const quoted = {
      status: 403,
      errorType: 'InvalidSignatureException',
      message: `The request signature we calculated does not match. Secret ${session.secretAccessKey} token ${session.sessionToken}`,
    }
    fake.nextErrors(...Array.from({ length: 10 }, () => quoted))
    const logged: unknown[][] = []
    const spies = (['error', 'warn', 'log', 'info'] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args)
      }),
    )
    events.length = 0
    const refused = await ask()
      .catch((error: unknown) => error as Error)
      .finally(() => spies.forEach((spy) => spy.mockRestore()))
    expect((refused as { status?: number }).status).toBe(502)
    expect(events.length).toBeGreaterThan(0)
    // The refusal was logged (the upstream rests), and what the gateway said is all that shows.
    expect(logged.length).toBeGreaterThan(0)
    const shown = [
      JSON.stringify(refused),
      String((refused as Error).message),
      JSON.stringify(events),
      logged
        .map((args) => args.map((arg) => (arg instanceof Error ? arg.stack : JSON.stringify(arg))))
        .join('\n'),
    ].join('\n')
    expect(shown).not.toContain(session.secretAccessKey)
    expect(shown).not.toContain(session.sessionToken)
    expect(shown).not.toContain(session.secretAccessKey.slice(0, 12))
  })
})
