import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import fc from 'fast-check'
import OpenAI from 'openai'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createGateway,
  GatewayConfigError,
  type GatewayConfig,
  type RequestEvent,
} from '../../src/index'
import { createCorsPolicy } from '../../src/http/cors'
import { compileRoutes } from '../../src/http/route-table'
import { builtInRoutes } from '../../src/handlers/built-in-routes'
import { serveGateway, type ServedGateway } from '../../src/node/index'

const key = 'sk-cors-test-0123456789abcdefABCDEF'
const app = 'https://app.example.com'

const base = {
  groups: [
    {
      id: 'demo',
      protocol: 'openai',
      models: ['demo-echo'],
      upstreams: [{ provider: 'mock' }],
    },
  ],
  keys: [{ key, limits: { requestsPerMinute: 100 } }],
} satisfies GatewayConfig

const servers: ServedGateway[] = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
})

/** A gateway served over HTTP (node:http), and the events it emitted. */
async function serve(config: Partial<GatewayConfig>) {
  const events: RequestEvent[] = []
  const gateway = createGateway({ ...base, ...config, onEvent: (event) => events.push(event) })
  const served = await serveGateway(gateway, { port: 0 })
  servers.push(served)
  return { url: served.url, events }
}

/** A preflight as Chromium sends it: no credentials, the method and headers the page will use. */
function preflight(url: string, origin: string, requestHeaders: string, method = 'POST') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': requestHeaders,
      accept: '*/*',
      'sec-fetch-mode': 'cors',
    },
  })
}

/** A `fetch` that adds the page's `Origin`, as a browser does, and keeps every answer. */
function browserFetch(origin: string, answers: Response[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    request.headers.set('origin', origin)
    const response = await fetch(request)
    answers.push(response)
    return response
  }
}

// What each SDK asks for in a preflight from a browser (names as Chromium lists them: sorted,
// lower-case). The openai and Anthropic SDKs send their x-stainless-* telemetry.
const stainless =
  'x-stainless-arch,x-stainless-lang,x-stainless-os,x-stainless-package-version,x-stainless-retry-count,x-stainless-runtime,x-stainless-runtime-version,x-stainless-timeout'
const sdkPreflights = {
  openai: { path: '/v1/chat/completions', headers: `authorization,content-type,${stainless}` },
  anthropic: {
    path: '/v1/messages',
    headers: `anthropic-dangerous-direct-browser-access,anthropic-version,content-type,x-api-key,${stainless}`,
  },
  gemini: {
    path: '/v1beta/models/demo-echo:generateContent',
    headers: 'content-type,x-goog-api-client,x-goog-api-key',
  },
}

describe('cors: preflights', () => {
  it('answers each SDK preflight from an allowed origin with 204, without a key', async () => {
    const { url, events } = await serve({ cors: { origins: [app, 'http://localhost:5173'] } })
    for (const [name, { path, headers }] of Object.entries(sdkPreflights)) {
      const answer = await preflight(`${url}${path}`, app, headers)
      expect(answer.status, name).toBe(204)
      expect(answer.headers.get('access-control-allow-origin'), name).toBe(app)
      expect(answer.headers.get('access-control-allow-methods'), name).toBe('POST')
      expect(answer.headers.get('access-control-allow-headers')?.split(', '), name).toEqual(
        headers.split(','),
      )
      expect(answer.headers.get('access-control-max-age'), name).toBe('7200')
      expect(answer.headers.get('vary'), name).toBe(
        'origin, access-control-request-method, access-control-request-headers',
      )
      expect(answer.headers.get('x-request-id'), name).toMatch(/^req_/)
      expect(await answer.text()).toBe('')
    }
    expect(events.map((event) => [event.route, event.status, event.keyId])).toEqual([
      ['chat.completions', 204, undefined],
      ['messages', 204, undefined],
      ['gemini.generate', 204, undefined],
    ])
    // GET routes allow GET and HEAD.
    const models = await preflight(
      `${url}/v1/models`,
      'http://localhost:5173',
      'authorization',
      'GET',
    )
    expect(models.status).toBe(204)
    expect(models.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(models.headers.get('access-control-allow-methods')).toBe('GET, HEAD')
  })

  it('answers only the allowed headers a preflight asks for, so a browser refuses the rest', async () => {
    const { url } = await serve({
      cors: { origins: [app], allowHeaders: ['x-tenant', 'x-my-app-*'], maxAgeSeconds: 60 },
    })
    const answer = await preflight(
      `${url}/v1/chat/completions`,
      app,
      'Authorization, X-Tenant, x-my-app-trace, cookie, x-evil, traceparent, x-gateway-user',
    )
    expect(answer.status).toBe(204)
    // The end user a page names (`x-gateway-user`) is the gateway's own header: always allowed.
    expect(answer.headers.get('access-control-allow-headers')).toBe(
      'authorization, x-tenant, x-my-app-trace, traceparent, x-gateway-user',
    )
    expect(answer.headers.get('access-control-max-age')).toBe('60')
  })

  it('leaves other origins, plain OPTIONS and unknown paths to the usual answers', async () => {
    const { url } = await serve({ cors: { origins: [app] } })
    const other = await preflight(
      `${url}/v1/chat/completions`,
      'https://evil.example',
      'authorization',
    )
    expect(other.status).toBe(405)
    expect(other.headers.get('allow')).toBe('POST')
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    expect(other.headers.get('vary')).toBe('origin')
    // An OPTIONS without Access-Control-Request-Method is not a preflight.
    const plain = await fetch(`${url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: app },
    })
    expect(plain.status).toBe(405)
    const unknown = await preflight(`${url}/v1/nope`, app, 'authorization')
    expect(unknown.status).toBe(404)
    // The 404 is readable by the page: an allowed origin gets the CORS headers on errors too.
    expect(unknown.headers.get('access-control-allow-origin')).toBe(app)
  })

  it('allows any origin only when the config says "*"', async () => {
    const { url } = await serve({ cors: { origins: '*' } })
    const answer = await preflight(`${url}/v1/messages`, 'https://anywhere.example', 'x-api-key')
    expect(answer.status).toBe(204)
    expect(answer.headers.get('access-control-allow-origin')).toBe('*')
    expect(answer.headers.get('vary')).toBe('access-control-request-headers')
    const models = await fetch(`${url}/v1/models`, {
      headers: { origin: 'https://anywhere.example', authorization: `Bearer ${key}` },
    })
    expect(models.headers.get('access-control-allow-origin')).toBe('*')
    expect(models.headers.get('vary')).toBeNull()
  })

  it('works under a base path', async () => {
    const { url } = await serve({ basePath: '/llm', cors: { origins: [app] } })
    const answer = await preflight(`${url}/llm/v1/chat/completions`, app, 'authorization')
    expect(answer.status).toBe(204)
    const outside = await preflight(`${url}/v1/chat/completions`, app, 'authorization')
    expect(outside.status).toBe(404)
  })
})

describe('cors: answers', () => {
  it('lets the SDKs read answers and errors from an allowed origin, rate limits and request id exposed', async () => {
    const { url } = await serve({ cors: { origins: [app] } })
    const answers: Response[] = []
    const fetchFromApp = browserFetch(app, answers)

    const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, fetch: fetchFromApp })
    const chat = await openai.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'from a page' }],
    })
    expect(chat.choices[0]?.message.content).toBe('You said: from a page')
    const anthropic = new Anthropic({ apiKey: key, baseURL: url, fetch: fetchFromApp })
    const message = await anthropic.messages.create({
      model: 'demo-echo',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'from a page' }],
    })
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'You said: from a page' })
    const google = new GoogleGenAI({
      apiKey: key,
      httpOptions: { baseUrl: url, fetch: fetchFromApp } as never,
    })
    const generated = await google.models.generateContent({
      model: 'demo-echo',
      contents: 'from a page',
    })
    expect(generated.text).toBe('You said: from a page')
    const wrongKey = new OpenAI({
      apiKey: 'sk-not-a-key-0123456789abcdefABCD',
      baseURL: `${url}/v1`,
      fetch: fetchFromApp,
      maxRetries: 0,
    })
    await expect(wrongKey.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError)

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 401])
    for (const answer of answers) {
      expect(answer.headers.get('access-control-allow-origin')).toBe(app)
      expect(answer.headers.get('vary')).toBe('origin')
      const exposed = answer.headers.get('access-control-expose-headers')!.split(', ')
      expect(exposed).toEqual(
        expect.arrayContaining([
          'x-request-id',
          'retry-after',
          'x-ratelimit-remaining-requests',
          'anthropic-ratelimit-requests-remaining',
        ]),
      )
    }
    // The rate-limit headers the page may now read are there.
    expect(answers[0]!.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/)
    expect(answers[1]!.headers.get('anthropic-ratelimit-requests-remaining')).toMatch(/^\d+$/)
  })

  it('gives another origin no CORS headers (the browser then hides the answer)', async () => {
    const { url } = await serve({ cors: { origins: [app] } })
    const answer = await fetch(`${url}/v1/models`, {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${key}` },
    })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('access-control-allow-origin')).toBeNull()
    expect(answer.headers.get('access-control-expose-headers')).toBeNull()
  })
})

describe('cors: off by default', () => {
  it('answers a preflight 405 and adds no CORS header anywhere, as before', async () => {
    const { url } = await serve({})
    for (const { path, headers } of Object.values(sdkPreflights)) {
      const answer = await preflight(`${url}${path}`, app, headers)
      expect(answer.status).toBe(405)
      expect(
        [...answer.headers.keys()].filter((name) => name.startsWith('access-control-')),
      ).toEqual([])
      expect(answer.headers.get('vary')).toBeNull()
    }
    const answers: Response[] = []
    const openai = new OpenAI({
      apiKey: key,
      baseURL: `${url}/v1`,
      fetch: browserFetch(app, answers),
    })
    await openai.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(
      [...answers[0]!.headers.keys()].filter((name) => name.startsWith('access-control-')),
    ).toEqual([])
    expect(answers[0]!.headers.get('vary')).toBeNull()
  })
})

describe('cors: config', () => {
  it('refuses origins that are not origins, and anything but a list or "*"', () => {
    const build = (cors: unknown) => () =>
      createGateway({ ...base, cors } as unknown as GatewayConfig)
    expect(build({ origins: ['https://app.example.com/'] })).toThrow(
      /cors\.origins\[0\]: expected an origin such as "https:\/\/app\.example\.com"/,
    )
    expect(build({ origins: ['https://App.example.com', 'app.example.com'] })).toThrow(
      GatewayConfigError,
    )
    expect(build({ origins: 'https://app.example.com' })).toThrow(
      /cors\.origins: expected a list of origins, or "\*" for any origin/,
    )
    expect(build({ origins: [] })).toThrow(/cors\.origins: list at least one origin/)
    expect(build({})).toThrow(/cors\.origins/)
    expect(build({ origins: '*', allowHeaders: ['X-Upper'] })).toThrow(
      /cors\.allowHeaders\[0\]: expected a lower-case HTTP header name/,
    )
    expect(build({ origins: '*', maxAgeSeconds: 100_000 })).toThrow(/cors\.maxAgeSeconds/)
    expect(
      build({
        origins: ['http://[::1]:5173', 'chrome-extension://abcdef', 'http://localhost:3000'],
      }),
    ).not.toThrow()
  })
})

describe('cors: the preflight parser (property)', () => {
  it('never throws, allows only allowed headers, and only allowed origins', () => {
    const policy = createCorsPolicy(
      { origins: [app], allowHeaders: ['x-app-*'] },
      ['traceparent'],
      compileRoutes(builtInRoutes),
    )
    const headerName = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{0,24}$/)
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(app), fc.string()),
        fc.array(fc.oneof(headerName, fc.constantFrom('x-stainless-os', 'X-App-1', 'cookie')), {
          maxLength: 12,
        }),
        fc.constantFrom(', ', ',', ' , '),
        (origin, names, separator) => {
          const headers = new Headers()
          try {
            headers.set('origin', origin)
          } catch {
            return // not a header value a client can send
          }
          headers.set('access-control-request-method', 'POST')
          headers.set('access-control-request-headers', names.join(separator))
          const result = policy.preflight('OPTIONS', '/v1/chat/completions', headers)
          if (origin !== app) {
            expect(result).toBeUndefined()
            return
          }
          const allowed = result!.answer.headers.get('access-control-allow-headers')
          for (const name of allowed === undefined ? [] : allowed.split(', ')) {
            expect(
              name === 'traceparent' ||
                name === 'authorization' ||
                name.startsWith('x-stainless-') ||
                name.startsWith('x-app-') ||
                [
                  'accept',
                  'content-type',
                  'user-agent',
                  'x-api-key',
                  'x-goog-api-key',
                  'x-goog-api-client',
                  'anthropic-version',
                  'anthropic-beta',
                  'anthropic-dangerous-direct-browser-access',
                  'openai-organization',
                  'openai-project',
                  'idempotency-key',
                  'x-client-request-id',
                  'x-request-id',
                ].includes(name),
            ).toBe(true)
          }
        },
      ),
    )
  })
})
