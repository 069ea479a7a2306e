import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGateway, type RequestEvent } from '../../../src/index'
import { createConsole } from '../../../src/console/index'
import { createNodeFetch, serveGateway } from '../../../src/node/index'
import { adminToken, ConsoleClient } from '../../console/console-setup'
import { makeServiceAccount, startGoogleTokenFake } from '../../helpers/fakes/google-token-fake'
import { startVertexFake } from '../../helpers/fakes/vertex-fake'
import { keys } from '../../helpers/gateway'

/**
 * Vertex tokens on the clock, and the secrets of Google credentials kept out of everything the
 * gateway says, against the loopback Google token endpoint and Vertex fakes. The token endpoint
 * and Vertex share the gateway's clock, so time moves for all three at once.
 */
afterEach(() => {
  vi.restoreAllMocks()
})

describe('Vertex tokens on the clock', () => {
  it('are fetched again once at the refresh margin and once after expiry, before Vertex refuses one', async () => {
    let clock = Date.now()
    const tokens = await startGoogleTokenFake({ now: () => clock })
    const vertex = await startVertexFake({
      project: 'p',
      region: 'global',
      isValid: tokens.isValid,
    })
    const account = makeServiceAccount(tokens.tokenUri)
    tokens.register(account)
    const served = await serveGateway(
      createGateway({
        groups: [
          {
            id: 'gemini',
            protocol: 'gemini',
            models: ['gemini-2.5-flash'],
            upstreams: [
              {
                provider: 'vertex',
                project: 'p',
                region: 'global',
                baseUrl: vertex.url,
                serviceAccount: account.json,
              },
            ],
          },
        ],
        keys: [{ key: keys.main }],
        fetch: createNodeFetch(),
        now: () => clock,
      }),
      { port: 0 },
    )
    const genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: served.url } })
    const burst = async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          genai.models.generateContent({ model: 'gemini-2.5-flash', contents: `Hello ${index}` }),
        ),
      )
      expect(answers.every((answer) => (answer.text ?? '').includes('Answer from'))).toBe(true)
    }
    try {
      await burst()
      expect(tokens.fetches).toBe(1)
      clock += 54 * 60_000 // the 3599 s token has 5 minutes and 59 s left: still served
      await burst()
      expect(tokens.fetches).toBe(1)
      clock += 2 * 60_000 // inside the 5-minute margin: one refresh for the burst
      await burst()
      expect(tokens.fetches).toBe(2)
      clock += 61 * 60_000 // past the second token's end: one fetch, not one per call
      await burst()
      expect(tokens.fetches).toBe(3)
      // Each refresh came before Vertex saw an expired token: no call was refused and retried.
      expect(vertex.unauthenticated).toBe(0)
      expect(vertex.calls).toHaveLength(200)
    } finally {
      await served.close()
      await vertex.close()
      await tokens.close()
    }
  })
})

describe('Google credentials stay secret', () => {
  it('no token, private key, refresh token or client secret reaches a client, an event, the log or the console', async () => {
    const logged: string[] = []
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation(
        (...args: unknown[]) => void logged.push(args.map(String).join(' ')),
      )
    }
    const tokens = await startGoogleTokenFake()
    const vertex = await startVertexFake({
      project: 'p',
      region: 'us-east5',
      isValid: tokens.isValid,
      leakyModel: 'leaky-model',
    })
    const account = makeServiceAccount(tokens.tokenUri)
    tokens.register(account)
    // A key deleted in IAM: the token endpoint refuses its assertions ("Invalid JWT Signature.").
    const deleted = makeServiceAccount(tokens.tokenUri)
    const user = {
      type: 'authorized_user',
      client_id: 'client-7.apps.googleusercontent.com',
      client_secret: 'GOCSPX-user-client-secret-0123456789',
      refresh_token: '1//0g-user-refresh-token-0123456789abcdef',
      token_uri: tokens.tokenUri,
    }
    tokens.registerUser(user.client_id, user.client_secret, user.refresh_token)
    const entry = (id: string, serviceAccount: Record<string, string>) => ({
      provider: 'vertex' as const,
      id,
      project: 'p',
      region: 'us-east5',
      baseUrl: vertex.url,
      serviceAccount,
    })
    const events: RequestEvent[] = []
    const gateway = createGateway({
      groups: [
        {
          id: 'claude',
          protocol: 'anthropic',
          models: [
            { name: 'sonnet', upstreamModel: 'claude-sonnet-4-5@20250929' },
            { name: 'leaky-claude', upstreamModel: 'leaky-model' },
          ],
          upstreams: [entry('vertex-key', account.json)],
        },
        {
          id: 'gemini',
          protocol: 'gemini',
          models: ['gemini-2.5-flash', { name: 'leaky-gemini', upstreamModel: 'leaky-model' }],
          upstreams: [entry('vertex-user', user)],
        },
        {
          id: 'deleted',
          protocol: 'anthropic',
          models: [{ name: 'deleted-sonnet', upstreamModel: 'claude-sonnet-4-5@20250929' }],
          upstreams: [entry('vertex-deleted', deleted.json)],
        },
      ],
      keys: [{ key: keys.main }],
      fetch: createNodeFetch(),
      onEvent: (event) => events.push(event),
    })
    const served = await serveGateway(gateway, { port: 0 })
    const anthropic = new Anthropic({ apiKey: keys.main, baseURL: served.url })
    const genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: served.url } })
    const said: string[] = []
    /** The error a call must fail with, kept with everything else the gateway said. */
    const failure = <T>(call: Promise<T>) =>
      call.then(
        (): never => {
          throw new Error('the call was expected to fail')
        },
        (error: unknown) => {
          said.push(JSON.stringify(error), String(error))
          return error as Error & { status?: number }
        },
      )
    try {
      const hello = [{ role: 'user' as const, content: 'Hello' }]
      const ok = await anthropic.messages.create({
        model: 'sonnet',
        max_tokens: 32,
        messages: hello,
      })
      expect(ok.content[0]!.type).toBe('text')
      expect(
        (await genai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi' })).text,
      ).toContain('Answer from')

      // Vertex (a proxy in front of it) quotes the bearer token: each client gets it redacted.
      const claudeLeak = await failure(
        anthropic.messages.create({ model: 'leaky-claude', max_tokens: 32, messages: hello }),
      )
      expect(claudeLeak).toBeInstanceOf(Anthropic.BadRequestError)
      expect(claudeLeak.message).toContain('authorization: Bearer [redacted]')
      const geminiLeak = await failure(
        genai.models.generateContent({ model: 'leaky-gemini', contents: 'Hi' }),
      )
      expect(geminiLeak.status).toBe(400)
      expect(geminiLeak.message).toContain('[redacted]')

      // A refused key: nothing is sent, the client learns no account, the log says why.
      const sentBefore = vertex.calls.length
      const refused = await failure(
        anthropic.messages.create({ model: 'deleted-sonnet', max_tokens: 32, messages: hello }),
      )
      expect(refused.status).toBe(502)
      expect(refused.message).toContain('could not obtain its Google credentials')
      expect(refused.message).not.toContain(deleted.json['client_email'])
      expect(vertex.calls.length).toBe(sentBefore)
      expect(logged).toContainEqual(
        `[model-gateway] upstream vertex-deleted has no Google credentials: The token endpoint of ${deleted.json['client_email']} answered 400 without an access token (invalid_grant: Invalid JWT Signature.).`,
      )

      const admin = new ConsoleClient(
        createConsole(gateway, { auth: { adminTokens: [adminToken] } }),
      )
      await admin.signIn(adminToken)
      const consoleSays = [
        JSON.stringify((await admin.call('GET', '/health')).data),
        JSON.stringify((await admin.call('GET', '/models')).data),
      ]
      expect(consoleSays[0]).toContain('vertex-deleted')

      const sentTokens = vertex.calls.map(
        (call) => /^Bearer (.+)$/.exec(String(call.headers.authorization))![1]!,
      )
      expect(new Set(sentTokens).size).toBeGreaterThanOrEqual(2) // the key's and the user's
      const secrets = [
        ...sentTokens,
        user.client_secret,
        user.refresh_token,
        // Every line of both private keys' base64 body.
        ...[account, deleted].flatMap((key) =>
          key.json['private_key']!.split('\n').filter((line) => line.length >= 32),
        ),
      ]
      const everything = [JSON.stringify(events), ...said, ...logged, ...consoleSays].join('\n')
      expect(events.length).toBeGreaterThanOrEqual(5)
      for (const secret of secrets) expect(everything).not.toContain(secret)
      expect(everything).not.toContain('ya29.')
    } finally {
      await served.close()
      await vertex.close()
      await tokens.close()
    }
  })
})
