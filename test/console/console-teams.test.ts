import OpenAI from 'openai'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageLedger, type GatewayConfig } from '../../src/index'
import {
  createConsole,
  createMemoryKeyAdmin,
  createMemoryTeamAdmin,
  type MemoryKeyAdmin,
} from '../../src/console/index'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { openPage, screenshot, startBrowser, viewports } from './browser-setup'
import { brokenRuns, collidingLabels, overflowingElements } from './layout-checks'

// The teams page in a real browser: the organisation's month by team, each team's keys, spend
// against its budget and spend per day, key creation within a team, at a phone's 390 px and a
// desktop's 1,280 px (screenshots under test/console/screenshots); a key holder never sees it.

const adminToken = 'teams-admin-token-0123456789'
const platformKey = 'sk-teams-platform-key-0123456789'
const soloKey = 'sk-teams-solo-key-0123456789'

let served: ServedGateway
let browser: Browser
let keys: MemoryKeyAdmin
beforeAll(async () => {
  keys = createMemoryKeyAdmin()
  const teams = createMemoryTeamAdmin()
  await teams.create({ id: 'data', name: 'Data team', budget: { usd: 5, per: 'day' } })
  const gateway = createGateway({
    groups: [
      {
        id: 'chat',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ provider: 'mock' }],
      },
    ],
    teams: [{ id: 'platform', name: 'Platform', budget: { usd: 50, per: 'month' } }],
    keys: [
      { key: platformKey, id: 'key-platform', name: 'platform-ci', team: 'platform' },
      { key: soloKey, id: 'key-solo', name: 'solo' },
    ],
    keyStore: keys,
    teamStore: teams,
    usageLedger: createMemoryUsageLedger(),
    console: { adminTokens: [adminToken], keyLogin: true },
  } as GatewayConfig)
  served = await serveGateway(gateway, {
    port: 0,
    console: createConsole(gateway, { keys, teams }),
  })
  browser = await startBrowser()
  const { key: etlKey } = await keys.create({ id: 'key-etl', name: 'etl-nightly', team: 'data' })
  const chat = (apiKey: string) =>
    new OpenAI({ apiKey, baseURL: `${served.url}/v1` }).chat.completions.create({
      model: 'gpt-4o-mini',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'spend something for the team' }],
    })
  await chat(platformKey)
  await chat(etlKey)
  await chat(etlKey)
  await chat(soloKey)
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await served?.close()
})

async function signIn(page: Page, secret: string): Promise<void> {
  await page.goto(`${served.url}/console/`)
  await page.getByLabel(/Admin token|API key/).fill(secret)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
}

async function checkLayout(page: Page, what: string, width: number): Promise<void> {
  expect(await overflowingElements(page), what).toEqual([])
  expect(await collidingLabels(page), what).toEqual([])
  expect(await brokenRuns(page), what).toEqual([])
  expect(await page.evaluate(() => document.documentElement.scrollWidth), what).toBeLessThanOrEqual(
    width,
  )
}

describe('the teams page in a real browser', { timeout: 60_000 }, () => {
  for (const [width, viewport] of Object.entries(viewports)) {
    it(`shows spend by team and each team's keys and budget, fitting at ${viewport.width} px`, async () => {
      const { context, page, problems } = await openPage(browser, viewport)
      await signIn(page, adminToken)
      await page.getByRole('link', { name: 'Teams' }).click()
      await page.locator('[data-team-id="data"]').waitFor()
      expect(await page.title()).toBe('Teams · model-gateway console')

      // The organisation's month, team by team, and what keys of no team spent.
      const byTeam = page.getByTestId('spend-by-team')
      const spendOf = async (team: string) =>
        (await byTeam.locator(`tr[data-team="${team}"] td[data-label="Spend"]`).textContent())!
      expect(await byTeam.locator('tbody tr').count()).toBe(3)
      for (const team of ['data', 'platform', '']) expect(await spendOf(team)).toMatch(/^\$0\.0\d+/)
      const nano = (text: string) => Math.round(Number(text.replace('$', '')) * 1e9)
      // The data team made two requests, the others one each, all alike: twice the spend.
      expect(nano(await spendOf('data'))).toBe(2 * nano(await spendOf('platform')))
      expect(nano(await spendOf(''))).toBe(nano(await spendOf('platform')))

      const data = page.locator('[data-team-id="data"]')
      expect(await data.locator('li[data-key-id="key-etl"]').textContent()).toContain('etl-nightly')
      expect(await data.getByTestId('team-budget').textContent()).toMatch(
        /Budget per day\s*\$0\.0\d+ of \$5/,
      )
      expect(await data.locator('meter').getAttribute('max')).toBe('5')
      expect(await data.locator('figure.chart svg rect').count()).toBeGreaterThan(0)
      const platform = page.locator('[data-team-id="platform"]')
      expect(await platform.textContent()).toContain('config file')
      expect(await platform.locator('li[data-key-id="key-platform"]').count()).toBe(1)
      expect(await page.locator('li[data-key-id="key-solo"]').count()).toBe(0)

      await screenshot(page, `teams-${width}`)
      await checkLayout(page, 'teams', viewport.width)
      expect(problems).toEqual({ errors: [], violations: [] })
      await context.close()
    })
  }

  it('creates a key within a team, and a team', async () => {
    const { context, page, problems } = await openPage(browser, viewports.phone)
    await signIn(page, adminToken)
    await page.goto(`${served.url}/console/#/teams`)
    const data = page.locator('[data-team-id="data"]')
    await data.getByRole('button', { name: 'Add a key to Data team' }).click()
    await data.getByLabel('Key name').fill('analyst')
    await data.getByRole('button', { name: 'Create key in Data team' }).click()
    const panel = page.getByTestId('created-key')
    await panel.getByRole('heading', { name: 'Key analyst created in Data team' }).waitFor()
    const secret = (await panel.locator('code').textContent())!
    expect(secret).toMatch(/^sk-mg-/)
    await data.locator('li', { hasText: 'analyst' }).waitFor()
    const created = (await keys.list()).find((key) => key.name === 'analyst')
    expect(created?.team).toBe('data')
    await checkLayout(page, 'teams with a created key', viewports.phone.width)

    await page.getByRole('button', { name: 'Create team' }).click()
    await page.getByLabel('Team id').fill('research')
    await page.getByLabel('Name', { exact: true }).fill('Research')
    await page.getByLabel('Budget per UTC month (USD)').fill('120')
    await page.getByRole('button', { name: 'Create team' }).click()
    const research = page.locator('[data-team-id="research"]')
    await research.waitFor()
    expect(await research.getByTestId('team-budget').textContent()).toContain('of $120')
    await screenshot(page, 'teams-created-phone')
    expect(problems).toEqual({ errors: [], violations: [] })
    await context.close()
  })

  it('keeps a key holder to their own key: no teams page, and its API refused', async () => {
    const { context, page } = await openPage(browser, viewports.desktop)
    await signIn(page, platformKey)
    expect(await page.getByRole('link', { name: 'Teams' }).count()).toBe(0)
    await page.goto(`${served.url}/console/#/teams`)
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
    const answer = await page.request.get(`${served.url}/console/api/teams`)
    expect(answer.status()).toBe(403)
    expect(await answer.text()).not.toContain('Data team')
    // The keys page still lists that key only, its team named nowhere else.
    await page.locator('tbody tr').first().waitFor()
    expect(await page.locator('tbody tr').count()).toBe(1)
    await context.close()
  })
})
