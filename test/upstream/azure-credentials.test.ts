import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { azureManagedIdentity } from '../../src/node/index'
import { azureKeyA, entraApp, startAzureGateway } from '../helpers/azure-gateway'
import { configError } from '../helpers/config-error'
import { keys } from '../helpers/gateway'

/** Tokens, failover, content filters and secrets of Azure upstreams, against loopback fakes. */
describe('Azure OpenAI credentials and content filters', () => {
  let azure: Awaited<ReturnType<typeof startAzureGateway>>
  let openai: OpenAI
  const failures: string[] = []
  const logged: string[] = []
  beforeAll(async () => {
    vi.spyOn(console, 'error').mockImplementation(
      (...args: unknown[]) => void logged.push(args.map(String).join(' ')),
    )
    azure = await startAzureGateway()
    openai = new OpenAI({ apiKey: keys.main, baseURL: `${azure.url}/v1` })
  })
  afterAll(async () => {
    await azure.close()
    vi.restoreAllMocks()
  })

  const chat = (model: string, content = 'Say hi') =>
    fetch(`${azure.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
    })

  it('200 concurrent calls fetch one Entra token', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, () => chat('mini')))
    expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(200))
    expect(azure.entra.fetches).toBe(1)
    await Promise.all(answers.map((answer) => answer.text()))
  })

  it('a token the resource stops taking is refreshed once and the calls retried', async () => {
    const before = azure.entra.fetches
    azure.tokens.clear() // revoked: the resource answers 401 to the cached token
    const answers = await Promise.all(Array.from({ length: 10 }, () => chat('mini')))
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200))
    expect(azure.entra.fetches).toBe(before + 1)
  })

  it("a token reaching its refresh margin on the gateway's clock is fetched again once", async () => {
    let clock = Date.now()
    const timed = await startAzureGateway({ now: () => clock })
    try {
      const call = () =>
        fetch(`${timed.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mini', messages: [{ role: 'user', content: 'hi' }] }),
        }).then(async (answer) => [answer.status, await answer.text()] as const)
      expect(
        (await Promise.all(Array.from({ length: 20 }, call))).every(([status]) => status === 200),
      ).toBe(true)
      expect(timed.entra.fetches).toBe(1)
      clock += 54 * 60_000 // 54 minutes: the 3599 s token is 5 minutes from its end
      expect(
        (await Promise.all(Array.from({ length: 20 }, call))).every(([status]) => status === 200),
      ).toBe(true)
      expect(timed.entra.fetches).toBe(1)
      clock += 2 * 60_000 // inside the margin: one refresh for the burst
      expect(
        (await Promise.all(Array.from({ length: 20 }, call))).every(([status]) => status === 200),
      ).toBe(true)
      expect(timed.entra.fetches).toBe(2)
    } finally {
      await timed.close()
    }
  })

  it('fails over to the second resource when the first has no token, sending it nothing', async () => {
    const before = azure.resourceA.calls.length
    const answer = await chat('pair-mini')
    expect(answer.status).toBe(200)
    const event = azure.events.findLast((item) => item.model === 'pair-mini')!
    expect(event.attempts!.map((attempt) => attempt.upstream)).toEqual(['pair-a', 'pair-b'])
    expect(azure.resourceB.calls.at(-1)!.headers.authorization).toMatch(/^Bearer eyJ/)
    expect(azure.resourceA.calls.length).toBe(before)
    // Why is the operator's: the log names the principal and Entra's code, never the secret.
    expect(logged).toContainEqual(
      `[model-gateway] upstream pair-a has no Azure credentials: Entra ID gave no token to client ${entraApp.clientId} of tenant ${entraApp.tenantId} (HTTP 401: invalid_client, AADSTS7000215).`,
    )
  })

  it('one resource with no usable credential answers 502 without the cause (kept for the operator), no token or secret', async () => {
    const solo = await startAzureGateway({
      groups: [
        {
          id: 'solo',
          protocol: 'openai',
          models: [{ name: 'solo-mini', upstreamModel: 'prod-mini' }],
          upstreams: [
            {
              provider: 'azure',
              id: 'solo-a',
              baseUrl: 'http://127.0.0.1:9',
              entra: {
                ...entraApp,
                clientSecret: 'wrong-secret-value-0123456789',
                authorityHost: 'http://127.0.0.1:9',
              },
            },
          ],
        },
      ],
    })
    try {
      const client = new OpenAI({ apiKey: keys.main, baseURL: `${solo.url}/v1` })
      const failure = await client.chat.completions
        .create({ model: 'solo-mini', messages: [{ role: 'user', content: 'hi' }] })
        .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>)
      expect(failure).toBeInstanceOf(OpenAI.APIError)
      expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(502)
      expect((failure as InstanceType<typeof OpenAI.APIError>).message).toMatch(
        /could not obtain its Azure credentials for this upstream; the call was not sent/,
      )
      // Where the token was asked for (a tenant, a host) is the operator's, not the client's.
      expect((failure as InstanceType<typeof OpenAI.APIError>).message).not.toMatch(
        /127\.0\.0\.1|tenant/i,
      )
      failures.push(JSON.stringify((failure as InstanceType<typeof OpenAI.APIError>).error))
    } finally {
      await solo.close()
    }
  })

  it('a credentials callback: a string is asked for per call, an expiring token is cached', async () => {
    let registry: Map<string, number> | undefined
    let asked = { plain: 0, expiring: 0 }
    const mint = (name: string) => {
      const token = `eyJ0eXAiOiJKV1QifQ.${name}`
      registry!.set(token, Date.now() + 3_600_000)
      return token
    }
    const scopes: string[] = []
    const withCallbacks = await startAzureGateway({
      groups: ['plain', 'expiring'].map((kind) => ({
        id: kind,
        protocol: 'openai' as const,
        models: [{ name: `${kind}-mini`, upstreamModel: 'prod-mini' }],
        upstreams: [
          {
            provider: 'azure' as const,
            baseUrl: azure.resourceB.origin,
            credentials: async (scope: string) => {
              scopes.push(scope)
              if (kind === 'plain') return mint(`plain-${++asked.plain}`)
              return { value: mint(`exp-${++asked.expiring}`), expiresAt: Date.now() + 3_600_000 }
            },
          },
        ],
      })),
    })
    registry = azure.tokens
    try {
      const call = (model: string) =>
        fetch(`${withCallbacks.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
        })
      for (const model of ['plain-mini', 'plain-mini', 'expiring-mini', 'expiring-mini']) {
        const answer = await call(model)
        expect(answer.status).toBe(200)
        await answer.text()
      }
      expect(asked).toEqual({ plain: 2, expiring: 1 })
      expect(new Set(scopes)).toEqual(new Set(['https://cognitiveservices.azure.com/.default']))
    } finally {
      await withCallbacks.close()
    }
  })

  it('managed identity: the identity endpoint with its header, one token for many calls', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat('mi-mini')))
    expect(answers.every((answer) => answer.status === 200)).toBe(true)
    expect(azure.identity.fetches).toBe(1)
    expect(azure.resourceA.calls.at(-1)!.headers.authorization).toMatch(
      /^Bearer eyJ0eXAiOiJKV1QifQ\.mi-/,
    )
  })

  it('managed identity: a wrong header is refused; IMDS needs Metadata: true', async () => {
    const wrong = azureManagedIdentity({
      env: { IDENTITY_ENDPOINT: `${azure.identity.origin}/msi/token`, IDENTITY_HEADER: 'nope' },
    })
    await expect(wrong('https://cognitiveservices.azure.com/.default')).rejects.toThrow(
      /identity endpoint \(IDENTITY_ENDPOINT\) answered HTTP 401: unauthorized/,
    )
    const imds = azureManagedIdentity({
      env: { AZURE_POD_IDENTITY_AUTHORITY_HOST: azure.identity.origin },
    })
    const token = await imds('https://cognitiveservices.azure.com/.default')
    expect(token.value).toMatch(/\.mi-/)
    expect(token.expiresAt! - Date.now()).toBeGreaterThan(86_000_000)
    const silent = azureManagedIdentity({
      env: { AZURE_POD_IDENTITY_AUTHORITY_HOST: 'http://127.0.0.1:9' },
      imdsTimeoutMs: 500,
    })
    await expect(silent('https://cognitiveservices.azure.com/.default')).rejects.toThrow(
      /instance metadata service/,
    )
  })

  it('a prompt the content filter blocks is a 400 naming the filters, in every protocol', async () => {
    const openaiError = await openai.chat.completions
      .create({ model: 'mini', messages: [{ role: 'user', content: 'BLOCKME' }] })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>)
    expect(openaiError).toBeInstanceOf(OpenAI.BadRequestError)
    expect((openaiError as InstanceType<typeof OpenAI.APIError>).code).toBe('content_filter')
    expect((openaiError as InstanceType<typeof OpenAI.APIError>).message).toContain(
      'violence (high)',
    )
    const anthropic = new Anthropic({ apiKey: keys.main, baseURL: azure.url })
    const anthropicError = await anthropic.messages
      .create({ model: 'mini', max_tokens: 50, messages: [{ role: 'user', content: 'BLOCKME' }] })
      .catch((error: unknown) => error as InstanceType<typeof Anthropic.APIError>)
    expect(anthropicError).toBeInstanceOf(Anthropic.BadRequestError)
    expect((anthropicError as any).error.error.type).toBe('invalid_request_error')
    expect((anthropicError as InstanceType<typeof Anthropic.APIError>).message).toContain(
      'blocklist raiBlocklistName',
    )
    const genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: azure.url } })
    const geminiError = await genai.models
      .generateContent({ model: 'mini', contents: 'BLOCKME' })
      .catch((error: unknown) => error as Error & { status?: number })
    expect((geminiError as { status?: number }).status).toBe(400)
    expect((geminiError as Error).message).toContain('content filter blocked the prompt')
    const responsesError = await openai.responses
      .create({ model: 'resp-mini', input: 'BLOCKME' })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>)
    expect(responsesError).toBeInstanceOf(OpenAI.BadRequestError)
    expect((responsesError as InstanceType<typeof OpenAI.APIError>).message).toContain(
      'violence (high)',
    )
  })

  it("a completion cut by the filter is each protocol's refusal", async () => {
    const messages = [{ role: 'user' as const, content: 'FILTEROUT' }]
    const json = await openai.chat.completions.create({ model: 'mini', messages })
    expect(json.choices[0]!.finish_reason).toBe('content_filter')
    const anthropic = new Anthropic({ apiKey: keys.main, baseURL: azure.url })
    const message = await anthropic.messages.create({ model: 'mini', max_tokens: 50, messages })
    expect(message.stop_reason).toBe('refusal')
    const streamed = await anthropic.messages
      .stream({ model: 'dated-mini', max_tokens: 50, messages })
      .finalMessage()
    expect(streamed.stop_reason).toBe('refusal')
    const genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: azure.url } })
    let finish: string | undefined
    for await (const chunk of await genai.models.generateContentStream({
      model: 'mini',
      contents: 'FILTEROUT',
    }))
      finish = chunk.candidates?.[0]?.finishReason ?? finish
    expect(finish).toBe('SAFETY')
    const response = await openai.responses.create({ model: 'dated-mini', input: 'FILTEROUT' })
    expect(response.status).toBe('incomplete')
    expect(response.incomplete_details?.reason).toBe('content_filter')
  })

  it('no token, key or client secret reaches an event, an error or the log', () => {
    const seen = JSON.stringify(azure.events) + failures.join('') + logged.join('\n')
    expect(azure.events.length).toBeGreaterThan(200)
    for (const secret of [
      entraApp.clientSecret,
      azureKeyA,
      'wrong-secret-value-0123456789',
      'eyJ0eXAiOiJKV1QifQ',
    ])
      expect(seen).not.toContain(secret)
  })
})

describe('Azure entries that cannot authenticate', () => {
  const group = (upstream: object) => ({
    groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [upstream] }],
    keys: [{ key: keys.main }],
  })
  it('neither a credential nor a managed identity is a config error naming the field', () => {
    const error = configError(group({ provider: 'azure', baseUrl: 'https://r.openai.azure.com' }))
    expect(error.issues[0]!.path).toBe('groups[0].upstreams[0].apiKey')
    expect(error.issues[0]!.message).toMatch(/"apiKey", "apiKeys", "entra" or "credentials"/)
  })
  it('an empty key is refused, not sent', () => {
    const error = configError(
      group({ provider: 'azure', baseUrl: 'https://r.openai.azure.com', apiKey: '' }),
    )
    expect(error.issues[0]!.path).toBe('groups[0].upstreams[0].apiKey')
  })
  it('two credentials are refused', () => {
    const error = configError(
      group({
        provider: 'azure',
        baseUrl: 'https://r.openai.azure.com',
        apiKey: 'k',
        entra: { tenantId: 't', clientId: 'c', clientSecret: 's' },
      }),
    )
    expect(error.message).toMatch(/give one credential: "apiKey" or "entra"/)
    const twice = configError(
      group({
        provider: 'azure',
        baseUrl: 'https://r.openai.azure.com',
        entra: { tenantId: 't', clientId: 'c', clientSecret: 's' },
        credentials: () => 'token',
      }),
    )
    expect(twice.issues[0]!.path).toBe('groups[0].upstreams[0].credentials')
    expect(twice.message).toMatch(/give one credential: "entra" or "credentials"/)
  })
  it('an Azure entry in an anthropic group is refused', () => {
    const error = configError({
      groups: [
        {
          id: 'g',
          protocol: 'anthropic',
          models: ['m'],
          upstreams: [{ provider: 'azure', baseUrl: 'https://r.openai.azure.com', apiKey: 'k' }],
        },
      ],
      keys: [{ key: keys.main }],
    })
    expect(error.message).toMatch(/azure/)
  })
})
