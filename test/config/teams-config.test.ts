import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter, type GatewayConfig } from '../../src/index'
import { serveGateway } from '../../src/node/index'
import { configError } from '../helpers/config-error'

/** Issue 33's config: teams, a key's team and perUser, the organisation's budget. */
const keyA = 'sk-teams-config-a-0123456789abcdef'
const keyB = 'sk-teams-config-b-0123456789abcdef'
const groups = ['chat', 'code', 'vision'].map((id) => ({
  id,
  protocol: 'openai' as const,
  models: [`${id}-model`],
  upstreams: [{ provider: 'mock' as const }],
}))
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('teams in the config', () => {
  it('name the field of an unknown team, a duplicate team id, and a key group its team does not allow', () => {
    const error = configError({
      groups,
      teams: [
        { id: 'data', groups: ['chat', 'code'] },
        { id: 'data' },
        { id: 'ops', groups: ['nowhere'] },
      ],
      keys: [
        { key: keyA, team: 'missing' },
        { key: keyB, team: 'data', groups: ['chat', 'vision'] },
      ],
    })
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: 'teams[1].id', message: 'duplicate team id "data"' },
        { path: 'teams[2].groups[0]', message: 'unknown group "nowhere"' },
        { path: 'keys[0].team', message: 'unknown team "missing": add it to "teams"' },
        {
          path: 'keys[1].groups[1]',
          message: 'group "vision" is not one of team "data"\'s groups',
        },
      ]),
    )
    expect(error.issues).toHaveLength(4)
  })

  it('take the shapes of a key’s limits, and refuse a field a key would not have', () => {
    const error = configError({
      groups,
      teams: [{ id: 'data', limits: { requestsPerMinute: 0 }, budget: { usd: 5, per: 'week' } }],
      organisation: { budget: { usd: -1, per: 'month' } },
      keys: [{ key: keyA, team: 'data', perUser: { limits: { tokensPerHour: 5 } } }],
    })
    const paths = error.issues.map((issue) => issue.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        'teams[0].limits.requestsPerMinute',
        'teams[0].budget',
        'organisation.budget.usd',
        'keys[0].perUser.limits',
      ]),
    )
  })

  it('refuse to start on a meter that does not enforce the levels the config has', () => {
    const meter = createMemoryUsageMeter()
    const thirdParty = {
      reserve: meter.reserve.bind(meter),
      settle: meter.settle.bind(meter),
      release: meter.release.bind(meter),
      summary: meter.summary.bind(meter),
    }
    const error = configError({
      groups,
      usageMeter: thirdParty,
      teams: [{ id: 'data' }],
      organisation: { budget: { usd: 10, per: 'month' } },
      keys: [{ key: keyA, team: 'data', perUser: { budget: { usd: 1, per: 'day' } } }],
    })
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'teams',
      'organisation.budget',
      'keys[0].perUser',
    ])
  })

  it('narrow a key of a team to the groups both allow, in routing and in /v1/models', async () => {
    const config: GatewayConfig = {
      groups,
      teams: [{ id: 'data', groups: ['chat', 'code'] }],
      keys: [
        { key: keyA, id: 'a', team: 'data' },
        { key: keyB, id: 'b', team: 'data', groups: ['code'] },
      ],
    }
    const served = await serveGateway(createGateway(config), { port: 0 })
    cleanups.push(() => served.close())
    const clientA = new OpenAI({ apiKey: keyA, baseURL: `${served.url}/v1` })
    const clientB = new OpenAI({ apiKey: keyB, baseURL: `${served.url}/v1` })
    const listed = async (client: OpenAI) =>
      (await client.models.list()).data.map((model) => model.id).sort()
    expect(await listed(clientA)).toEqual(['chat-model', 'code-model'])
    expect(await listed(clientB)).toEqual(['code-model'])
    const refused = await clientA.chat.completions
      .create({ model: 'vision-model', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 404 })
    const refusedB = await clientB.chat.completions
      .create({ model: 'chat-model', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error)
    expect(refusedB).toMatchObject({ status: 404 })
    const answered = await clientB.chat.completions.create({
      model: 'code-model',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(answered.choices).toHaveLength(1)
  })

  it('carries the team and the end user in events and usage records, and the host app names the end user in code', async () => {
    const events: Record<string, unknown>[] = []
    const gateway = createGateway({
      groups,
      teams: [{ id: 'data', budget: { usd: 100, per: 'month' } }],
      prices: { '*': { input: 1, output: 1 } },
      keys: [{ key: keyA, id: 'a', team: 'data', perUser: { limits: { requestsPerMinute: 1 } } }],
      onEvent: (event) => events.push(event as unknown as Record<string, unknown>),
    })
    const call = (init: { user?: string; header?: string; endUser?: string }) =>
      gateway(
        new Request('http://gateway.test/v1/chat/completions', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${keyA}`,
            'content-type': 'application/json',
            ...(init.header === undefined ? {} : { 'x-gateway-user': init.header }),
          },
          body: JSON.stringify({
            model: 'chat-model',
            messages: [{ role: 'user', content: 'Hi' }],
            ...(init.user === undefined ? {} : { user: init.user }),
          }),
        }),
        init.endUser === undefined ? undefined : { endUser: init.endUser },
      )
    expect((await call({ user: 'from-body' })).status).toBe(200)
    // The header wins over the body, the host app's endUser over both.
    expect((await call({ user: 'from-body', header: 'from-header' })).status).toBe(200)
    expect((await call({ user: 'x', header: 'y', endUser: 'from-app' })).status).toBe(200)
    // perUser: one request a minute each; from-app's second is refused, naming the end user.
    const refused = await call({ endUser: 'from-app' })
    expect(refused.status).toBe(429)
    expect(await refused.text()).toContain('End user \\"from-app\\" of this API key')
    expect(events.map((event) => [event['team'], event['endUser'], event['status']])).toEqual([
      ['data', 'from-body', 200],
      ['data', 'from-header', 200],
      ['data', 'from-app', 200],
      ['data', 'from-app', 429],
    ])
  })
})
