import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createGateway, type GatewayConfig } from '../../src/index'
import { createConsole } from '../../src/console/index'
import {
  adminToken,
  ConsoleClient,
  consoleGateway,
  demoKey,
  origin,
  otherKey,
  upstreamSecret,
  viewerToken,
} from './console-setup'

type KeyRow = {
  id: string
  name: string
  masked: string
  source: string
  status: string
  groups: string[] | null
  limits: Record<string, number>
  usage: {
    today: { requests: number; totalTokens: number } | null
    month: { requests: number } | null
  }
  lastUsedAt: number | null
}
type KeysPage = {
  keys: KeyRow[]
  organisation: unknown
  canEdit: boolean
  baseUrl: string
  store: string
}

/** The openai SDK, with the defaults users get, over the handler (no server). */
function sdk(app: (request: Request) => Promise<Response>, apiKey: string) {
  return new OpenAI({
    apiKey,
    baseURL: `${origin}/v1`,
    fetch: (input, init) => app(new Request(input, init)),
  })
}

describe('console API: keys', () => {
  it('lists config keys (read-only, masked) and created keys, with the base address', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const page = (await client.call('GET', '/keys')).data as unknown as KeysPage
    expect(page.baseUrl).toBe(origin)
    expect(page.canEdit).toBe(true)
    expect(page.store).toBe('memory')
    expect(
      page.keys.map((key) => [key.id, key.masked, key.source, key.status, key.groups]),
    ).toEqual([
      ['key-demo', 'sk-…6789', 'config', 'active', ['chat']],
      ['key-other', 'sk-…6789', 'config', 'active', null],
    ])
    const body = JSON.stringify(page)
    expect(body).not.toContain(demoKey)
    expect(body).not.toContain(otherKey)
  })

  it('creates a key whose secret is shown once and works at once; edits and revokes it', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const created = await client.call('POST', '/keys', {
      name: 'team-a',
      groups: ['chat'],
      limits: { requestsPerMinute: 60, tokensPerDay: 50_000 },
      expiresAt: '2099-01-01T00:00:00Z',
    })
    expect(created.status).toBe(200)
    const secret = created.data.key as string
    const row = created.data.row as KeyRow
    expect(row).toMatchObject({
      name: 'team-a',
      source: 'memory',
      status: 'active',
      groups: ['chat'],
    })
    expect(row.masked).toBe(`${secret.slice(0, 19)}…`)
    const completion = await sdk(app, secret).chat.completions.create({
      model: 'echo-1',
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: hi')

    const listed = (await client.call('GET', '/keys')).data as unknown as KeysPage
    const listedRow = listed.keys.find((key) => key.id === row.id)!
    expect(JSON.stringify(listed)).not.toContain(secret)
    expect(listedRow.usage.today?.requests).toBe(1)
    expect(listedRow.usage.month?.requests).toBe(1)
    expect(listedRow.lastUsedAt).toBeGreaterThan(Date.now() - 60_000)

    const edited = await client.call('PATCH', `/keys/${row.id}`, {
      name: 'team-a2',
      limits: { requestsPerMinute: null, tokensPerMonth: 1_000_000 },
    })
    expect(edited.status).toBe(200)
    expect((edited.data.row as KeyRow).limits).toEqual({
      tokensPerDay: 50_000,
      tokensPerMonth: 1_000_000,
    })

    const revoked = await client.call('POST', `/keys/${row.id}/revoke`, {})
    expect((revoked.data.row as KeyRow).status).toBe('revoked')
    await expect(
      sdk(app, secret).chat.completions.create({
        model: 'echo-1',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toMatchObject({ status: 401 })
  })

  it('refuses changes to config keys, and clear messages for bad input', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const configKey = await client.call('PATCH', '/keys/key-demo', { name: 'x' })
    expect(configKey.status).toBe(409)
    expect(configKey.data.error?.message).toMatch(/defined in the config file/)
    expect((await client.call('POST', '/keys/key-demo/revoke', {})).status).toBe(409)
    const cases: Array<[unknown, number, RegExp]> = [
      [{ quotaTokens: -1 }, 400, /quotaTokens/],
      [{ groups: ['nope'] }, 400, /Unknown group "nope"/],
      [{ colour: 'red' }, 400, /Unknown field "colour"/],
      [{ limits: { tokensPerDay: 'many' } }, 400, /limits\.tokensPerDay/],
      [{ expiresAt: 'tomorrow' }, 400, /expiresAt/],
      [{ name: 'x'.repeat(201) }, 400, /name/],
    ]
    for (const [body, status, message] of cases) {
      const answer = await client.call('POST', '/keys', body)
      expect([answer.status, answer.data.error?.message]).toEqual([
        status,
        expect.stringMatching(message),
      ])
      expect(JSON.stringify(answer.data)).not.toMatch(/\bat \S+:\d+/)
    }
    const notJson = await app(
      new Request(`${origin}/console/api/keys`, {
        method: 'POST',
        headers: {
          origin,
          'content-type': 'application/json',
          'x-csrf-token': client.csrf,
          cookie: `mg_console=${client.cookies.get('mg_console')}`,
        },
        body: '{"name":',
      }),
    )
    expect([notJson.status, await notJson.json()]).toEqual([
      400,
      { error: { message: 'The body is not valid JSON.' } },
    ])
    expect((await client.call('PATCH', '/keys/missing', { name: 'x' })).status).toBe(404)
    expect((await client.call('PATCH', `/keys/${encodeURIComponent('%E0%A4%A')}`, {})).status).toBe(
      404,
    )
    expect((await client.call('DELETE', '/keys')).status).toBe(405)
    expect((await client.call('GET', '/nothing')).status).toBe(404)
  })

  it('shows keys read-only without a key admin', async () => {
    const gateway = createGateway({
      groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [{ provider: 'mock' }] }],
      keys: [{ key: demoKey }],
    })
    const app = createConsole(gateway, { auth: { adminTokens: [adminToken] } })
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const page = (await client.call('GET', '/keys')).data as unknown as KeysPage
    expect([page.canEdit, page.store]).toEqual([false, null])
    const refused = await client.call('POST', '/keys', { name: 'x' })
    expect(refused.status).toBe(409)
    expect(refused.data.error?.message).toMatch(/read-only/)
  })
})

describe('console API: roles', () => {
  it('lets a viewer read everything and change nothing', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(viewerToken)
    const page = (await client.call('GET', '/keys')).data as unknown as KeysPage
    expect(page.canEdit).toBe(false)
    expect(page.keys).toHaveLength(2)
    expect(page.organisation).not.toBeNull()
    expect((await client.call('GET', '/health')).status).toBe(200)
    const refused = await client.call('POST', '/keys', { name: 'x' })
    expect([refused.status, refused.data.error?.message]).toEqual([403, 'Only admins change keys.'])
  })

  it('confines a key holder to their own key, in every API answer', async () => {
    const { app } = consoleGateway()
    await sdk(app, demoKey).chat.completions.create({
      model: 'echo-1',
      messages: [{ role: 'user', content: 'a' }],
    })
    await sdk(app, otherKey).chat.completions.create({
      model: 'echo-1',
      messages: [{ role: 'user', content: 'b' }],
    })
    const holder = new ConsoleClient(app)
    const session = await holder.signIn(demoKey)
    expect(session.data.user).toEqual({ role: 'key', name: 'demo', keyId: 'key-demo' })

    const page = (await holder.call('GET', '/keys')).data as unknown as KeysPage
    expect(page.keys.map((key) => key.id)).toEqual(['key-demo'])
    expect(page.organisation).toBeNull()
    expect(page.canEdit).toBe(false)
    expect(JSON.stringify(page)).not.toContain('key-other')

    const usage = await holder.call('GET', '/usage')
    const report = usage.data.report as {
      keys: Array<{ keyId: string }>
      totals: { requests: number }
    }
    expect(report.keys.map((key) => key.keyId)).toEqual(['key-demo'])
    expect(report.totals.requests).toBe(1)
    expect(JSON.stringify(usage.data)).not.toContain('key-other')

    const probes: Array<[string, string, unknown?]> = [
      ['GET', '/usage?key=key-other'],
      ['PATCH', '/keys/key-other', { name: 'x' }],
      ['POST', '/keys/key-other/revoke', {}],
      ['PATCH', '/keys/no-such-key', { name: 'x' }],
    ]
    for (const [method, path, body] of probes) {
      const answer = await holder.call(method, path, body)
      expect([method, path, answer.status]).toEqual([method, path, 404])
    }
    // An unknown id and another holder's id get the same answer: nothing tells them apart.
    const other = await holder.call('PATCH', '/keys/key-other', { name: 'x' })
    const none = await holder.call('PATCH', '/keys/no-such-key', { name: 'x' })
    expect(other.data.error?.message.replace('key-other', 'ID')).toBe(
      none.data.error?.message.replace('no-such-key', 'ID'),
    )
    expect((await holder.call('PATCH', '/keys/key-demo', { name: 'x' })).status).toBe(403)
    expect((await holder.call('POST', '/keys', { name: 'x' })).status).toBe(403)
    expect((await holder.call('GET', '/health')).status).toBe(403)

    const models = (await holder.call('GET', '/models')).data as { groups: Array<{ id: string }> }
    expect(models.groups.map((group) => group.id)).toEqual(['chat'])
  })

  it("ends a key holder's session when their key is revoked", async () => {
    const { app } = consoleGateway()
    const admin = new ConsoleClient(app)
    await admin.signIn(adminToken)
    const created = await admin.call('POST', '/keys', { name: 'holder' })
    const holder = new ConsoleClient(app)
    await holder.signIn(created.data.key as string)
    expect((await holder.call('GET', '/keys')).status).toBe(200)
    await admin.call('POST', `/keys/${(created.data.row as KeyRow).id}/revoke`, {})
    const after = await holder.call('GET', '/keys')
    expect(after.status).toBe(401)
    expect(after.response.headers.getSetCookie()[0]).toMatch(/^mg_console=; .*Max-Age=0/)
  })

  it('refuses key sign-in unless keyLogin is on, and refuses keys the gateway refuses', async () => {
    const off = consoleGateway({ console: { auth: { keyLogin: false } } })
    expect(
      (await new ConsoleClient(off.app).call('POST', '/session', { secret: demoKey })).status,
    ).toBe(401)
    const on = consoleGateway()
    const admin = new ConsoleClient(on.app)
    await admin.signIn(adminToken)
    const created = await admin.call('POST', '/keys', { name: 'short-lived' })
    await admin.call('POST', `/keys/${(created.data.row as KeyRow).id}/revoke`, {})
    expect(
      (await new ConsoleClient(on.app).call('POST', '/session', { secret: created.data.key }))
        .status,
    ).toBe(401)
  })
})

describe('console API: usage, models, health', () => {
  it('reports usage per day, model and key in one answer, over a capped span', async () => {
    const { app } = consoleGateway()
    await sdk(app, demoKey).chat.completions.create({
      model: 'echo-1',
      messages: [{ role: 'user', content: 'one' }],
    })
    await sdk(app, demoKey).chat.completions.create({
      model: 'sonnet',
      messages: [{ role: 'user', content: 'two' }],
    })
    await sdk(app, otherKey).chat.completions.create({
      model: 'echo-1',
      messages: [{ role: 'user', content: 'three' }],
    })
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const today = new Date().toISOString().slice(0, 10)
    const answer = await client.call('GET', `/usage?since=${today}&until=${today}`)
    expect(answer.data.source).toBe('ledger')
    type Row = { requests: number; costNanoUsd: number; unpricedRequests: number }
    const report = answer.data.report as {
      days: Array<{ day: string } & Row>
      models: Array<{ model: string } & Row>
      keys: Array<{ keyId: string } & Row>
      totals: { totalTokens: number } & Row
    }
    expect(report.days).toEqual([expect.objectContaining({ day: today, requests: 3 })])
    // Models by spend: the priced one first; the unpriced one's requests counted apart, never $0.
    expect(
      report.models.map((row) => [
        row.model,
        row.requests,
        row.costNanoUsd > 0,
        row.unpricedRequests,
      ]),
    ).toEqual([
      ['sonnet', 1, true, 0],
      ['echo-1', 2, false, 2],
    ])
    expect(report.totals.costNanoUsd).toBe(report.models[0]!.costNanoUsd)
    expect(report.totals.unpricedRequests).toBe(2)
    expect(Object.fromEntries(report.keys.map((row) => [row.keyId, row.requests]))).toEqual({
      'key-demo': 2,
      'key-other': 1,
    })
    expect(report.totals.totalTokens).toBeGreaterThan(0)
    const one = await client.call('GET', `/usage?key=key-other`)
    expect((one.data.report as typeof report).totals.requests).toBe(1)

    const bad: Array<[string, RegExp]> = [
      ['?since=2026-01-10&until=2026-01-01', /"since" is after "until"/],
      ['?since=2026-01-01&until=2026-04-03', /Pick at most 92 days \(93 asked\)/],
      ['?since=2026-02-30', /"since" takes a day as YYYY-MM-DD/],
      ['?until=yesterday', /"until" takes a day/],
      ['?key=nobody', /No key with id "nobody"/],
    ]
    for (const [query, message] of bad) {
      const refused = await client.call('GET', `/usage${query}`)
      expect(refused.status).toBeGreaterThanOrEqual(400)
      expect(refused.status).toBeLessThan(500)
      expect(refused.data.error?.message).toMatch(message)
    }
  })

  it("falls back to the meter's totals per key without a usage ledger", async () => {
    const gateway = createGateway({
      groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [{ provider: 'mock' }] }],
      keys: [{ key: demoKey, id: 'k' }],
    })
    const app = createConsole(gateway, { auth: { adminTokens: [adminToken] } })
    await sdk(gateway, demoKey).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    })
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const usage = await client.call('GET', '/usage')
    expect(usage.data.source).toBe('meter')
    expect(
      (usage.data.totals as Array<{ keyId: string; requests: number }>).map((row) => [
        row.keyId,
        row.requests,
      ]),
    ).toEqual([['k', 1]])
    const page = (await client.call('GET', '/keys')).data as unknown as KeysPage & {
      usageSource: string
    }
    expect(page.usageSource).toBe('meter')
  })

  it('lists the catalogue by group with profiles, capabilities and fallbacks', async () => {
    const { app } = consoleGateway({ config: { groupIdRouting: true } as Partial<GatewayConfig> })
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const catalogue = (await client.call('GET', '/models')).data as {
      groups: Array<{ id: string; protocol: string; models: Array<Record<string, unknown>> }>
    }
    expect(catalogue.groups.map((group) => [group.id, group.protocol])).toEqual([
      ['chat', 'openai'],
      ['vault', 'anthropic'],
    ])
    const sonnet = catalogue.groups[0]!.models[1]!
    expect(sonnet).toMatchObject({
      name: 'sonnet',
      pinnedName: 'chat/sonnet',
      upstreamModel: 'claude-sonnet-4-5',
      family: 'claude-sonnet-4-5',
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      capabilities: { tools: true, vision: true, structuredOutput: 'schema' },
      fallbacks: ['vault/claude-x'],
    })
    expect(catalogue.groups[0]!.models[0]).toMatchObject({
      name: 'echo-1',
      contextWindow: null,
      family: 'unknown',
    })
  })

  it('describes upstream health in words, and never shows an upstream secret anywhere', async () => {
    const { app } = consoleGateway()
    await sdk(app, otherKey)
      .chat.completions.create(
        { model: 'claude-x', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 },
        { maxRetries: 0 },
      )
      .catch(() => undefined)
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const health = await client.call('GET', '/health')
    const upstreams = health.data.upstreams as Array<{
      group: string
      upstream: string
      state: string
      summary: string
      tier: number
      routing: string
      keys: Array<{ masked: string }>
    }>
    expect(upstreams.map((upstream) => [upstream.group, upstream.upstream])).toEqual([
      ['chat', 'chat#0'],
      ['vault', 'vault-upstream'],
    ])
    expect(upstreams[0]!.summary).toBe('Healthy: taking requests (0 requests in flight).')
    // Each upstream's tier, share of this instance's calls and latency, in words.
    expect(upstreams[1]!.tier).toBe(0)
    expect(upstreams[1]!.routing).toMatch(
      /^Tier 0, \d+% of this instance's recent calls to the group \(\d+\)/,
    )
    // Pooled upstream keys appear masked, as gateway.health() gives them.
    expect(upstreams[1]!.keys.map((key) => key.masked)).toEqual(['sk-…5b4a', 'sk-…4a-2'])
    const answers = await Promise.all(
      ['/session', '/keys', '/models', '/usage', '/health'].map(async (path) =>
        JSON.stringify((await client.call('GET', path)).data),
      ),
    )
    const page = await (await app(new Request(`${origin}/console/`))).text()
    for (const text of [...answers, page]) {
      expect(text).not.toContain(upstreamSecret)
      expect(text).not.toContain(upstreamSecret.slice(0, 16))
    }
  })
})
