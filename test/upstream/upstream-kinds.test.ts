import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createHttpProvider,
  GatewayConfigError,
  type GatewayConfig,
  type PreparedRequest,
  type UpstreamCall,
} from '../../src/index'
import {
  upstreamAnswerKey,
  sendUpstream,
  type UpstreamAnswer,
} from '../../src/upstream/upstream-answer'
import { createLightAbort } from '../../src/internal/call-signal'
import { framed, framedKind } from './framed-kind'

const key = 'sk-test-upstream-kinds-0123456789'
const keys = [{ key }]

function gatewayOf(upstream: Record<string, unknown>, fetch: typeof globalThis.fetch, extra = {}) {
  return createGateway({
    groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [upstream] }],
    keys,
    fetch,
    upstreamKinds: [framedKind],
    ...extra,
  } as unknown as GatewayConfig)
}

function chat(stream: boolean): Request {
  return new Request('http://gateway.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'hi' }] }),
  })
}

function configError(run: () => unknown): GatewayConfigError {
  try {
    run()
  } catch (error) {
    if (error instanceof GatewayConfigError) return error
    throw error
  }
  throw new Error('expected a GatewayConfigError')
}

const completion = {
  id: 'c1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
}

describe('upstream kinds in the config', () => {
  it('"provider": "openai" is the HTTP upstream an entry without provider is', async () => {
    const seen: string[] = []
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(`${String(input)} ${new Headers(init?.headers).get('authorization')}`)
      return Response.json(completion)
    }) as typeof globalThis.fetch
    for (const upstream of [
      { baseUrl: 'https://u.test/v1', apiKey: 'sk-up' },
      { provider: 'openai', baseUrl: 'https://u.test/v1', apiKey: 'sk-up' },
    ]) {
      const answer = await gatewayOf(upstream, fetch)(chat(false))
      expect(answer.status).toBe(200)
    }
    expect(seen).toEqual([
      'https://u.test/v1/chat/completions Bearer sk-up',
      'https://u.test/v1/chat/completions Bearer sk-up',
    ])
  })

  it('refuses an unknown provider, naming the known kinds', () => {
    const error = configError(() => gatewayOf({ provider: 'watsonx', region: 'x' }, fetch))
    expect(error.issues).toEqual([
      {
        path: 'groups[0].upstreams[0].provider',
        message:
          'unknown upstream kind "watsonx": the known kinds are "openai", "anthropic", "gemini", "bedrock", "azure", "vertex", "mock", "framed" (add your own with "upstreamKinds")',
      },
    ])
  })

  it("checks an application kind's entry with its schema, at the entry's paths", () => {
    const error = configError(() =>
      gatewayOf({ provider: 'framed', baseUrl: 'https://f.test', token: 'short' }, fetch),
    )
    expect(error.issues).toEqual([
      { path: 'groups[0].upstreams[0].token', message: 'the token has at least 8 characters' },
    ])
  })

  it('refuses a kind in a group of a family it does not serve', () => {
    const error = configError(() =>
      createGateway({
        groups: [
          {
            id: 'a',
            protocol: 'anthropic',
            models: ['m'],
            upstreams: [{ provider: 'openai', baseUrl: 'https://u.test/v1' }],
          },
        ],
        keys,
      }),
    )
    expect(error.issues.map((issue) => issue.message)).toEqual([
      'the "openai" upstream kind serves "openai" groups, not "anthropic"',
    ])
  })

  it('refuses kinds and providers of an unknown specification version, and taken names', () => {
    const later = { ...framedKind, name: 'later', specificationVersion: 2 }
    const error = configError(() =>
      gatewayOf({ baseUrl: 'https://u.test/v1' }, fetch, {
        upstreamKinds: [later, { ...framedKind, name: 'mock' }],
      }),
    )
    expect(error.issues).toEqual([
      {
        path: 'upstreamKinds[0]',
        message:
          'upstream kind "later" implements specification version 2; this gateway implements version 1',
      },
      { path: 'upstreamKinds[1].name', message: 'the upstream kind name "mock" is already taken' },
    ])
    const provider = { id: 'p', protocol: 'openai', specificationVersion: 2, send: fetch }
    const refused = configError(() => gatewayOf(provider, fetch))
    expect(refused.issues).toEqual([
      {
        path: 'groups[0].upstreams[0]',
        message:
          'the provider implements specification version 2; this gateway implements version 1',
      },
    ])
  })
})

describe("a kind's stream reader", () => {
  const chunk = (content: string, finish: string | null = null) => ({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  })
  const body = framed([chunk('Hel'), chunk('lo'), chunk('', 'stop')])

  async function streamed(parts: Uint8Array[]): Promise<string> {
    const fetch = (async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
        { headers: { 'content-type': 'application/x-framed' } },
      )) as unknown as typeof globalThis.fetch
    const gateway = gatewayOf(
      { provider: 'framed', baseUrl: 'https://f.test', token: 'framed-token' },
      fetch,
    )
    const answer = await gateway(chat(true))
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/)
    return answer.text()
  }

  it('relays a non-SSE stream as SSE, whatever the chunk splits', async () => {
    const whole = await streamed([body])
    expect(whole).toContain('"content":"Hel"')
    expect(whole).toContain('"content":"lo"')
    expect(whole.trimEnd().endsWith('data: [DONE]')).toBe(true)
    for (let split = 1; split < body.length; split++) {
      expect(await streamed([body.slice(0, split), body.slice(split)])).toBe(whole)
    }
  })

  it('refuses an answer the reader cannot read as the upstream failure', async () => {
    const fetch = (async () =>
      new Response('data: {}\n\n', {
        headers: { 'content-type': 'text/event-stream' },
      })) as typeof globalThis.fetch
    const gateway = gatewayOf(
      { provider: 'framed', baseUrl: 'https://f.test', token: 'framed-token' },
      fetch,
      {
        groups: [
          {
            id: 'g',
            protocol: 'openai',
            models: ['m'],
            upstreams: [{ provider: 'framed', baseUrl: 'https://f.test', token: 'framed-token' }],
          },
        ],
      },
    )
    const answer = await gateway(chat(true))
    expect(answer.status).toBe(502)
  })
})

describe("a kind's error normaliser", () => {
  it("maps the upstream's own error body to its family's shape for a same-protocol client", async () => {
    const fetch = (async () =>
      Response.json(
        { message: 'the prompt is malformed' },
        { status: 400 },
      )) as typeof globalThis.fetch
    const gateway = gatewayOf(
      { provider: 'framed', baseUrl: 'https://f.test', token: 'framed-token' },
      fetch,
    )
    const answer = await gateway(chat(false))
    expect(answer.status).toBe(400)
    const body = (await answer.json()) as { error: { message: string; type: string } }
    expect(body.error).toMatchObject({ message: 'the prompt is malformed', type: 'upstream_error' })
  })
})

describe('a prepared request', () => {
  const call = (): UpstreamCall => ({
    operation: 'chat-completions',
    model: 'm',
    body: '{"model":"m"}',
    headers: new Headers({ 'content-type': 'application/json', 'x-forwarded': 'yes' }),
    stream: true,
    signal: new AbortController().signal,
  })
  const sign = async (request: PreparedRequest) => {
    request.headers['x-signature'] = `${request.method} ${request.url} ${request.body.length}`
    return request
  }
  const options = {
    id: 'u',
    protocol: 'openai' as const,
    baseUrl: 'https://u.test/v1/',
    apiKey: 'sk-up-0123456789abcdef',
    headers: { 'OpenAI-Organization': 'org-1' },
    sign,
  }

  it('is the same, signed the same, over fetch and over the direct Node path', async () => {
    const overFetch: PreparedRequest[] = []
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers: Record<string, string> = {}
      new Headers(init?.headers).forEach((value, name) => (headers[name] = value))
      overFetch.push({
        url: String(input),
        method: init!.method!,
        headers,
        body: String(init!.body),
      })
      return Response.json({})
    }) as typeof globalThis.fetch
    await createHttpProvider({ ...options, fetch }).send(call())

    const overDirect: PreparedRequest[] = []
    const direct = Object.assign(fetch, {
      [upstreamAnswerKey]: async (url: string, init: PreparedRequest): Promise<UpstreamAnswer> => {
        overDirect.push({ url, method: init.method, headers: { ...init.headers }, body: init.body })
        return { status: 200, ok: true, headers: new Headers(), body: null }
      },
    })
    await sendUpstream(
      createHttpProvider({ ...options, fetch: direct }),
      call(),
      createLightAbort().signal,
    )
    expect(overDirect).toEqual(overFetch)
    expect(overFetch[0]).toEqual({
      url: 'https://u.test/v1/chat/completions',
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        authorization: 'Bearer sk-up-0123456789abcdef',
        'content-type': 'application/json',
        'openai-organization': 'org-1',
        'x-forwarded': 'yes',
        'x-signature': 'POST https://u.test/v1/chat/completions 13',
      },
      body: '{"model":"m"}',
    })
  })

  it("sends a signer's mixed-case header names once, in lower case, on both transports", async () => {
    const mixedSign = async (request: PreparedRequest) => {
      request.headers['Content-Type'] = 'application/json; charset=utf-8'
      request.headers['X-Amz-Date'] = '20261128T101500Z'
      return request
    }
    const sent: Array<Record<string, string>> = []
    const fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      sent.push({ ...(init!.headers as Record<string, string>) })
      return Response.json({})
    }) as typeof globalThis.fetch
    await createHttpProvider({ ...options, sign: mixedSign, fetch }).send(call())
    const direct = Object.assign(fetch, {
      [upstreamAnswerKey]: async (_url: string, init: PreparedRequest): Promise<UpstreamAnswer> => {
        sent.push({ ...init.headers })
        return { status: 200, ok: true, headers: new Headers(), body: null }
      },
    })
    await sendUpstream(
      createHttpProvider({ ...options, sign: mixedSign, fetch: direct }),
      call(),
      createLightAbort().signal,
    )
    expect(sent).toHaveLength(2)
    expect(sent[1]).toEqual(sent[0])
    for (const headers of sent) {
      expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true)
      expect(headers['content-type']).toBe('application/json; charset=utf-8')
      expect(headers['x-amz-date']).toBe('20261128T101500Z')
    }
  })
})
