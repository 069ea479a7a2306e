import OpenAI from 'openai'
import { describe, expect, it, vi } from 'vitest'
import { builtInPriceRows } from '../../src/extend'
import {
  adminToken,
  ConsoleClient,
  consoleGateway,
  demoKey,
  origin,
  otherKey,
  viewerToken,
} from './console-setup'

/** The openai SDK, with the defaults users get, over the handler (no server). */
function sdk(app: (request: Request) => Promise<Response>, apiKey: string) {
  return new OpenAI({
    apiKey,
    baseURL: `${origin}/v1`,
    fetch: (input, init) => app(new Request(input, init)),
  })
}

const ask = (app: (request: Request) => Promise<Response>, key: string, model = 'sonnet') =>
  sdk(app, key).chat.completions.create({
    model,
    max_tokens: 50,
    messages: [{ role: 'user', content: 'how much?' }],
  })

type Totals = { requests: number; costNanoUsd: number; listCostNanoUsd: number }
type LimitState = { name: string; limit: number; used?: number }
type KeyRow = {
  id: string
  budget: Array<{ usd: number; per: string; alertAt?: number }>
  priceMultiplier: number | null
  limitStates: LimitState[]
  usage: { today: Totals; month: Totals }
}

describe('console: spend and budgets', () => {
  it('creates a key with money budgets and a price multiplier, shows its spend, and refuses it past an edited budget', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const created = await client.call('POST', '/keys', {
      name: 'budgeted',
      budget: [
        { usd: 5, per: 'day', alertAt: 0.8 },
        { usd: 100, per: 'month' },
      ],
      priceMultiplier: 1.5,
    })
    expect(created.status).toBe(200)
    const key = created.data.key as string
    const row = created.data.row as KeyRow
    expect(row.budget).toEqual([
      { usd: 5, per: 'day', alertAt: 0.8 },
      { usd: 100, per: 'month' },
    ])
    expect(row.priceMultiplier).toBe(1.5)

    await ask(app, key)
    const page = (await client.call('GET', '/keys')).data as { keys: KeyRow[] }
    const listed = page.keys.find((item) => item.id === row.id)!
    const today = listed.usage.today
    expect(today.requests).toBe(1)
    expect(today.costNanoUsd).toBeGreaterThan(0)
    // Charged at 1.5× the list price.
    expect(today.costNanoUsd).toBe(Math.round(today.listCostNanoUsd * 1.5))
    const perDay = listed.limitStates.find((state) => state.name === 'usdPerDay')!
    expect(perDay).toMatchObject({ limit: 5e9, used: today.costNanoUsd })

    // A budget below what the key spent today: the next request is refused.
    const spentUsd = today.costNanoUsd / 1e9
    const edited = await client.call('PATCH', `/keys/${row.id}`, {
      budget: { usd: spentUsd / 2, per: 'day' },
    })
    expect(edited.status).toBe(200)
    expect((edited.data.row as KeyRow).budget).toEqual([{ usd: spentUsd / 2, per: 'day' }])
    await expect(ask(app, key)).rejects.toMatchObject({ status: 429, code: 'budget_exceeded' })
    // Cleared, it spends again.
    await client.call('PATCH', `/keys/${row.id}`, { budget: null })
    await expect(ask(app, key)).resolves.toBeDefined()
  })

  it('refuses bad budgets with a clear message', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const cases: Array<[unknown, RegExp]> = [
      [{ budget: { usd: -1, per: 'day' } }, /budget/],
      [{ budget: { usd: 5, per: 'week' } }, /budget/],
      [
        {
          budget: [
            { usd: 5, per: 'day' },
            { usd: 6, per: 'day' },
          ],
        },
        /one budget per period/,
      ],
      [{ priceMultiplier: 0 }, /priceMultiplier/],
    ]
    for (const [body, message] of cases) {
      const answer = await client.call('POST', '/keys', body)
      expect([answer.status, answer.data.error?.message]).toEqual([
        400,
        expect.stringMatching(message),
      ])
    }
  })

  it("shows the organisation's spend against its budget and balance to staff, never to key holders", async () => {
    const today = new Date().toISOString().slice(0, 10)
    const { app } = consoleGateway({
      console: {
        organisation: { budgetUsd: 10, budgetPer: 'month', balance: { usd: 100, since: today } },
      },
    })
    await ask(app, demoKey)
    await ask(app, otherKey)
    await ask(app, otherKey, 'echo-1')
    const viewer = new ConsoleClient(app)
    await viewer.signIn(viewerToken)
    const page = (await viewer.call('GET', '/keys')).data as {
      organisation: {
        month: Totals & { unpricedRequests: number }
        budget: { usd: number; per: string; spentUsd: number; leftUsd: number }
        balance: { usd: number; since: string; spentUsd: number; leftUsd: number }
      }
    }
    const { month, budget, balance } = page.organisation
    expect(month.requests).toBe(3)
    expect(month.unpricedRequests).toBe(1)
    const spent = month.costNanoUsd / 1e9
    expect(spent).toBeGreaterThan(0)
    expect(budget).toEqual({
      usd: 10,
      per: 'month',
      spentUsd: spent,
      leftUsd: Math.round((10 - spent) * 1e9) / 1e9,
    })
    expect(balance).toEqual({
      usd: 100,
      since: today,
      spentUsd: spent,
      leftUsd: Math.round((100 - spent) * 1e9) / 1e9,
    })

    const holder = new ConsoleClient(app)
    await holder.signIn(demoKey)
    expect((await holder.call('GET', '/keys')).data.organisation).toBeNull()
  })

  it("shows the organisation's enforced budget (organisation.budget) when the console names none", async () => {
    const { app } = consoleGateway({
      config: {
        organisation: {
          budget: [
            { usd: 3, per: 'day' },
            { usd: 40, per: 'month' },
          ],
        },
      },
    })
    await ask(app, demoKey)
    const viewer = new ConsoleClient(app)
    await viewer.signIn(viewerToken)
    const page = (await viewer.call('GET', '/keys')).data as {
      organisation: { month: Totals; budget: { usd: number; per: string; spentUsd: number } }
    }
    expect(page.organisation.budget).toMatchObject({
      usd: 40,
      per: 'month',
      spentUsd: page.organisation.month.costNanoUsd / 1e9,
    })
  })

  it("takes the balance from the operator's callback, and survives one that fails", async () => {
    const ok = consoleGateway({
      console: { organisation: { balance: async () => ({ usd: 42.5, asOf: '2026-11-26' }) } },
    })
    const client = new ConsoleClient(ok.app)
    await client.signIn(adminToken)
    expect(
      ((await client.call('GET', '/keys')).data.organisation as { balance: unknown }).balance,
    ).toEqual({
      usd: 42.5,
      asOf: '2026-11-26',
      leftUsd: 42.5,
    })
    const failing = consoleGateway({
      console: {
        organisation: {
          balance: () => {
            throw new Error('billing API down')
          },
        },
      },
    })
    const other = new ConsoleClient(failing.app)
    await other.signIn(adminToken)
    // The failure is logged (captured here, not printed) and the page is served without it.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      const page = await other.call('GET', '/keys')
      expect(page.status).toBe(200)
      expect((page.data.organisation as { balance: unknown }).balance).toBeNull()
      expect(logged).toHaveBeenCalledWith(
        '[model-gateway] console: the organisation balance callback failed:',
        expect.objectContaining({ message: 'billing API down' }),
      )
    } finally {
      logged.mockRestore()
    }
  })

  it('lists each model with the price of the catalogue, its source and date, or "unpriced"', async () => {
    const { app } = consoleGateway()
    const admin = new ConsoleClient(app)
    await admin.signIn(adminToken)
    type Model = { name: string; price: Record<string, unknown> | null }
    const catalogue = (await admin.call('GET', '/models')).data as {
      groups: Array<{ models: Model[] }>
    }
    const models = catalogue.groups.flatMap((group) => group.models)
    const row = builtInPriceRows().find((item) => item.model === 'claude-sonnet-4-5')!
    expect(models.find((model) => model.name === 'sonnet')!.price).toEqual({
      currency: 'USD',
      unit: 'per 1M tokens',
      input: row.price.input,
      output: row.price.output,
      cachedInput: row.price.cachedInput,
      cacheWrite: 3.75,
      cacheWrite1h: 6,
      tiers: [
        {
          aboveInputTokens: 200_000,
          input: 6,
          output: 22.5,
          cachedInput: 0.6,
          cacheWrite: 7.5,
          cacheWrite1h: 12,
        },
      ],
      multiplier: 1,
      row: 'claude-sonnet-4-5',
      source: row.source,
      asOf: row.asOf,
      // No upstream of this group charges more than the list price where it runs.
      surcharges: [],
    })
    expect(models.find((model) => model.name === 'echo-1')!.price).toBeNull()

    // A key holder sees what their key is charged: what GET /v1/models lists for it.
    const created = await admin.call('POST', '/keys', {
      name: 'margin',
      priceMultiplier: 2,
      groups: ['chat'],
    })
    const holder = new ConsoleClient(app)
    await holder.signIn(created.data.key as string)
    const theirs = (await holder.call('GET', '/models')).data as {
      groups: Array<{ models: Model[] }>
    }
    const sonnet = theirs.groups[0]!.models.find((model) => model.name === 'sonnet')!.price!
    const listed = (await (
      await app(
        new Request(`${origin}/v1/models`, {
          headers: { authorization: `Bearer ${created.data.key as string}` },
        }),
      )
    ).json()) as { data: Array<{ id: string; pricing?: Record<string, unknown> }> }
    const pricing = listed.data.find((model) => model.id === 'sonnet')!.pricing!
    expect([sonnet.input, sonnet.output, sonnet.cachedInput, sonnet.multiplier]).toEqual([
      pricing.input,
      pricing.output,
      pricing.cached_input,
      2,
    ])
    expect(sonnet.input).toBe(row.price.input * 2)
  })
})
