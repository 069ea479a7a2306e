import { describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { createConsole, withConsole } from '../../src/console/index'
import {
  adminToken,
  ConsoleClient,
  consoleGateway,
  demoKey,
  origin,
  viewerToken,
} from './console-setup'

describe('console sign-in and sessions', () => {
  it('refuses to start without a way to sign in, with a weak token, or over another handler', () => {
    const gateway = createGateway({
      groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [{ provider: 'mock' }] }],
      keys: [{ key: demoKey }],
    })
    expect(() => createConsole(gateway)).toThrow(/needs a way to sign in/)
    expect(() => createConsole(gateway, { auth: {} })).toThrow(/needs a way to sign in/)
    expect(() => createConsole(gateway, { auth: { adminTokens: ['short'] } })).toThrow(
      /at least 16 printable characters/,
    )
    expect(() =>
      createConsole(gateway, { auth: { adminTokens: [adminToken], sessionSecret: 'too short' } }),
    ).toThrow(/at least 32 characters/)
    const plain = Object.assign(async () => new Response('hi'), {
      close: async () => undefined,
      health: async () => [],
    })
    expect(() => createConsole(plain, { auth: { adminTokens: [adminToken] } })).toThrow(
      /made by createGateway/,
    )
  })

  it('exchanges an admin token for an HttpOnly, SameSite=Strict cookie limited to its path', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    const { response, data } = await client.signIn(adminToken)
    const cookie = response.headers.getSetCookie()[0]!
    expect(cookie).toMatch(
      /^mg_console=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Path=\/console; Max-Age=28800; HttpOnly; SameSite=Strict$/,
    )
    expect(cookie).not.toContain('Secure')
    expect(data.user).toEqual({ role: 'admin', name: 'Admin' })
    expect(typeof data.csrf).toBe('string')
    // The cookie carries who and until when, signed; never the token.
    expect(Buffer.from(cookie.split('=')[1]!.split('.')[0]!, 'base64url').toString()).not.toContain(
      adminToken,
    )
    const session = await client.call('GET', '/session')
    expect(session.data.user).toEqual({ role: 'admin', name: 'Admin' })
  })

  it('marks the cookie Secure when the console is reached over https, directly or through a proxy', async () => {
    const { app } = consoleGateway()
    const direct = await new ConsoleClient(app, 'https://console.test').signIn(adminToken)
    expect(direct.response.headers.getSetCookie()[0]).toMatch(/; Secure$/)
    const proxied = await new ConsoleClient(app).call(
      'POST',
      '/session',
      { secret: adminToken },
      { 'x-forwarded-proto': 'https' },
    )
    expect(proxied.response.headers.getSetCookie()[0]).toMatch(/; Secure$/)
  })

  it('keeps admin tokens only as hashes: a token given as its SHA-256 signs in', async () => {
    const hash = Buffer.from(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(adminToken)),
    ).toString('hex')
    const { app } = consoleGateway({ console: { auth: { adminTokens: [`sha256:${hash}`] } } })
    await expect(new ConsoleClient(app).signIn(adminToken)).resolves.toBeDefined()
    await expect(new ConsoleClient(app).signIn(`sha256:${hash}`)).rejects.toThrow(/401/)
  })

  it('refuses a wrong token with 401 and a message, and limits failed sign-ins per client', async () => {
    let address = '192.0.2.1'
    const { app } = consoleGateway({ console: { clientAddress: () => address } })
    const client = new ConsoleClient(app)
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const wrong = await client.call('POST', '/session', {
        secret: `wrong-token-${attempt}-0123456789`,
      })
      expect(wrong.status).toBe(401)
      expect(wrong.data.error?.message).toBe('That token or key is not valid.')
    }
    // Past five failures a minute, even the right token waits: guessing costs time.
    const limited = await client.call('POST', '/session', { secret: adminToken })
    expect(limited.status).toBe(429)
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.data.error?.message).toMatch(/Too many failed sign-ins: try again in \d+ s\./)
    // Another client is not held back by the first one's failures.
    address = '192.0.2.2'
    expect((await client.call('POST', '/session', { secret: adminToken })).status).toBe(200)
  })

  it('takes the client address from the runtime: the Node bridge, Deno, Bun, Workers', async () => {
    const { runtimeClientAddress } = await import('../../src/console/index')
    const request = new Request('http://x/', {
      headers: { 'cf-connecting-ip': '198.51.100.7', 'x-forwarded-for': '203.0.113.9' },
    })
    expect(runtimeClientAddress(request, { remoteAddress: '10.0.0.1' })).toBe('10.0.0.1')
    expect(runtimeClientAddress(request, { remoteAddr: { hostname: '10.0.0.2' } })).toBe('10.0.0.2')
    expect(runtimeClientAddress(request, { requestIP: () => ({ address: '10.0.0.3' }) })).toBe(
      '10.0.0.3',
    )
    expect(runtimeClientAddress(request, { waitUntil: () => undefined })).toBe('198.51.100.7')
    // A header any client can write is never trusted on its own.
    expect(runtimeClientAddress(request)).toBeUndefined()
  })

  it('refuses a sign-in from another origin or without one (login CSRF)', async () => {
    const { app } = consoleGateway()
    const post = (headers: Record<string, string>) =>
      app(
        new Request(`${origin}/console/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ secret: adminToken }),
        }),
      )
    expect((await post({})).status).toBe(403)
    const foreign = await post({ origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect(await foreign.json()).toEqual({
      error: {
        message:
          "Changes are accepted from the console's own page only, not from https://evil.example.",
      },
    })
    expect((await post({ origin, 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await post({ origin })).status).toBe(200)
  })

  it('refuses a forged, altered or expired session cookie', async () => {
    let now = Date.parse('2026-11-26T10:00:00Z')
    const { app } = consoleGateway({ now: () => now })
    const client = new ConsoleClient(app)
    await client.signIn(viewerToken)
    const cookie = client.cookies.get('mg_console')!
    const [payload, signature] = cookie.split('.') as [string, string]
    const altered = JSON.parse(Buffer.from(payload, 'base64url').toString())
    altered.user.role = 'admin'
    const forged = `${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${signature}`
    client.cookies.set('mg_console', forged)
    expect((await client.call('GET', '/keys')).status).toBe(401)
    client.cookies.set('mg_console', cookie)
    expect((await client.call('GET', '/keys')).status).toBe(200)
    now += 8 * 3_600_000 + 1
    const expired = await client.call('GET', '/keys')
    expect(expired.status).toBe(401)
    expect(expired.data.error?.message).toBe('Sign in first.')
  })

  it('signs out: the cookie is deleted and the session refused even if replayed', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const cookie = client.cookies.get('mg_console')!
    const out = await client.call('DELETE', '/session')
    expect(out.status).toBe(200)
    expect(out.response.headers.getSetCookie()[0]).toMatch(
      /^mg_console=; Path=\/console; Max-Age=0; HttpOnly; SameSite=Strict/,
    )
    client.cookies.set('mg_console', cookie)
    expect((await client.call('GET', '/keys')).status).toBe(401)
    expect((await client.call('GET', '/session')).data).toEqual({
      user: null,
      signIn: { tokens: true, keyLogin: true, external: false },
    })
  })

  it('checks Origin and the CSRF token on every change, and takes only JSON', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const create = (headers: Record<string, string>) =>
      client.call('POST', '/keys', { name: 'x' }, headers)
    const noToken = await create({ 'x-csrf-token': '' })
    expect(noToken.status).toBe(403)
    expect(noToken.data.error?.message).toBe('The CSRF token is missing or stale: reload the page.')
    expect((await create({ 'x-csrf-token': 'forged-token' })).status).toBe(403)
    expect((await create({ origin: 'https://evil.example' })).status).toBe(403)
    expect((await create({ 'sec-fetch-site': 'same-site' })).status).toBe(403)
    expect((await create({ 'content-type': 'text/plain' })).status).toBe(415)
    // Another session's token is not this one's.
    const other = new ConsoleClient(app)
    await other.signIn(adminToken)
    expect((await create({ 'x-csrf-token': other.csrf })).status).toBe(403)
    const created = await create({})
    expect(created.status).toBe(200)
    expect(created.data.key).toMatch(/^sk-mg-[a-z0-9]{12}-[A-Za-z0-9]{48}$/)
    // Sign-out is a change too.
    expect(
      (await client.call('DELETE', '/session', undefined, { 'x-csrf-token': 'x' })).status,
    ).toBe(403)
  })

  it('lets an embedding app sign users in with authorize, with the CSRF defence still on', async () => {
    const { app } = consoleGateway({
      console: {
        auth: {
          adminTokens: [],
          viewerTokens: [],
          keyLogin: false,
          authorize: (request) =>
            request.headers.get('x-app-user') === 'alice' ? { role: 'admin', name: 'Alice' } : null,
        },
      },
    })
    const client = new ConsoleClient(app)
    expect((await client.call('GET', '/session')).data).toEqual({
      user: null,
      signIn: { tokens: false, keyLogin: false, external: true },
    })
    const session = await client.call('GET', '/session', undefined, { 'x-app-user': 'alice' })
    expect(session.data.user).toEqual({ role: 'admin', name: 'Alice' })
    expect(session.data.signOut).toBe(false)
    // The CSRF token is bound to a seed cookie of this browser.
    expect(client.cookies.get('mg_console_csrf')).toMatch(/^[A-Za-z0-9_-]{22}$/)
    const created = await client.call(
      'POST',
      '/keys',
      { name: 'from-sso' },
      { 'x-app-user': 'alice' },
    )
    expect(created.status).toBe(200)
    const stale = await client.call(
      'POST',
      '/keys',
      { name: 'x' },
      { 'x-app-user': 'alice', 'x-csrf-token': 'nope' },
    )
    expect(stale.status).toBe(403)
    expect((await client.call('GET', '/keys')).status).toBe(401)
    // No token sign-in exists here.
    expect((await client.call('POST', '/session', { secret: adminToken })).status).toBe(404)
  })

  it('shows publicBaseUrl as the base address and takes changes from its origin (a TLS proxy in front)', async () => {
    const { gateway } = consoleGateway()
    expect(() =>
      createConsole(gateway, { auth: { adminTokens: [adminToken] }, publicBaseUrl: 'ftp://x' }),
    ).toThrow(/expected an http\(s\) URL/)
    const { app } = consoleGateway({ console: { publicBaseUrl: 'https://llm.example.com' } })
    const proxied = new ConsoleClient(app)
    const signIn = await proxied.call(
      'POST',
      '/session',
      { secret: adminToken },
      { origin: 'https://llm.example.com', 'x-forwarded-proto': 'https' },
    )
    expect(signIn.status).toBe(200)
    expect(signIn.data.baseUrl).toBe('https://llm.example.com')
    expect(signIn.response.headers.getSetCookie()[0]).toMatch(/; Secure$/)
  })

  it('serves the page under a strict CSP with no inline script, style or handler', async () => {
    const { app } = consoleGateway()
    const page = await app(new Request(`${origin}/console/`))
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    )
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.headers.get('cache-control')).toBe('no-store')
    const html = await page.text()
    for (const script of html.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)) {
      expect(script[0]).toMatch(/ src="\/console\/assets\/app\.[0-9a-f]{12}\.js"/)
      expect(script[1]).toBe('')
    }
    expect(html).not.toMatch(/ style=| on[a-z]+=/)
    const redirect = await app(new Request(`${origin}/console`))
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/console/'])
    expect((await app(new Request(`${origin}/console/`, { method: 'POST' }))).status).toBe(405)
    expect((await app(new Request(`${origin}/console/nothing`))).status).toBe(404)
  })

  it('serves its embedded assets by content hash, cached for good, with 304 on revalidation', async () => {
    const { app } = consoleGateway()
    const html = await (await app(new Request(`${origin}/console/`))).text()
    const script = /src="([^"]+\.js)"/.exec(html)![1]!
    const style = /href="([^"]+\.css)"/.exec(html)![1]!
    const js = await app(new Request(`${origin}${script}`))
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const css = await app(new Request(`${origin}${style}`))
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    const again = await app(
      new Request(`${origin}${script}`, { headers: { 'if-none-match': js.headers.get('etag')! } }),
    )
    expect(again.status).toBe(304)
    expect((await app(new Request(`${origin}/console/assets/app.000000000000.js`))).status).toBe(
      404,
    )
    expect((await app(new Request(`${origin}/console/assets/__proto__`))).status).toBe(404)
  })

  it('keeps its JSON under <mount>/api: the gateway answers /v1 as before, and another mount path works', async () => {
    const { app } = consoleGateway({ console: { path: '/admin/console' } })
    const client = new ConsoleClient(async (request) => {
      const url = new URL(request.url)
      return app(
        new Request(
          `${url.origin}${url.pathname.replace('/console/', '/admin/console/')}${url.search}`,
          request,
        ),
      )
    })
    const { response } = await client.signIn(adminToken)
    expect(response.headers.getSetCookie()[0]).toContain('Path=/admin/console;')
    const models = await app(
      new Request(`${origin}/v1/models`, { headers: { authorization: `Bearer ${demoKey}` } }),
    )
    expect(models.status).toBe(200)
    expect((await app(new Request(`${origin}/v1/keys`))).status).not.toBe(200)
    expect((await app(new Request(`${origin}/console/`))).status).not.toBe(200)
  })
})

describe('withConsole', () => {
  it('sends the console path to the console and the rest to the gateway, context included', async () => {
    const seen: Array<[string, unknown]> = []
    const gateway = async (request: Request, context?: object) => {
      seen.push(['gateway', context])
      return new Response(new URL(request.url).pathname)
    }
    const consoleHandler = Object.assign(
      async (_request: Request, context?: object) => {
        seen.push(['console', context])
        return new Response('console')
      },
      {
        path: '/console',
        handles: (path: string) => path === '/console' || path.startsWith('/console/'),
      },
    )
    const app = withConsole(gateway, consoleHandler)
    const context = { remoteAddress: '10.0.0.9' }
    expect(await (await app(new Request('http://h/console/api/keys?x=1'), context)).text()).toBe(
      'console',
    )
    expect(await (await app(new Request('http://h/consoles'), context)).text()).toBe('/consoles')
    expect(await (await app(new Request('http://h/v1/models?console=1'))).text()).toBe('/v1/models')
    expect(seen).toEqual([
      ['console', context],
      ['gateway', context],
      ['gateway', undefined],
    ])
  })
})
