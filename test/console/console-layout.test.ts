import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServedGateway } from '../../src/node/index'
import { repoRoot } from '../helpers/spawn-runtime'
import {
  adminToken,
  holderKey,
  openPage,
  otherKey,
  screenshot,
  serveConsoleGateway,
  signIn,
  startBrowser,
  viewports,
} from './browser-setup'
import {
  brokenRuns,
  chartPositions,
  codeBlockProblems,
  collidingLabels,
  lineCounts,
  overflowingElements,
} from './layout-checks'

// The console at a desktop's 1,280 px and a phone's 390 px: every page screenshotted (under
// test/console/screenshots, not committed), and nothing out of its card, no label running into
// the next, no date broken at its hyphens, charts open at the latest day, code blocks that show
// their key and keep their copy button off the code.

let served: ServedGateway
let browser: Browser
/** The secret of a key with limits, a budget and an expiry: the widest row the keys page has. */
let busyKey: string
beforeAll(async () => {
  served = await serveConsoleGateway()
  browser = await startBrowser()
  busyKey = await createBusyKey()
  const chat = (apiKey: string, model: string) =>
    new OpenAI({ apiKey, baseURL: `${served.url}/v1` }).chat.completions.create({
      model,
      max_tokens: 20,
      messages: [{ role: 'user', content: 'something to chart' }],
    })
  await chat(holderKey, 'gpt-4o-mini')
  await chat(busyKey, 'gpt-4o-mini')
  await chat(holderKey, 'demo-echo')
  // This key's usage is unpriced only: its spend chart has nothing to draw.
  await chat(otherKey, 'demo-echo')
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await served?.close()
})

/** Creates, through the console's API, a key with every kind of limit and an expiry. */
async function createBusyKey(): Promise<string> {
  const { context, page } = await openPage(browser)
  await signIn(page, served.url, adminToken)
  const { csrf } = (await (await page.request.get(`${served.url}/console/api/session`)).json()) as {
    csrf: string
  }
  const answer = await page.request.post(`${served.url}/console/api/keys`, {
    headers: { origin: served.url, 'x-csrf-token': csrf, 'content-type': 'application/json' },
    data: {
      name: 'team-analytics-nightly',
      groups: ['chat'],
      limits: { requestsPerMinute: 600, tokensPerDay: 2_000_000 },
      budget: [
        { usd: 5, per: 'day' },
        { usd: 100, per: 'month' },
      ],
      expiresAt: '2027-03-31T00:00:00Z',
    },
  })
  expect(answer.status()).toBe(200)
  const { key } = (await answer.json()) as { key: string }
  await context.close()
  return key
}

/** The checks every page gets at every width. */
async function checkLayout(page: Page, what: string, width: number): Promise<void> {
  expect(await overflowingElements(page), what).toEqual([])
  expect(await collidingLabels(page), what).toEqual([])
  expect(await brokenRuns(page), what).toEqual([])
  // No sideways scrolling of the page itself.
  expect(await page.evaluate(() => document.documentElement.scrollWidth), what).toBeLessThanOrEqual(
    width,
  )
}

describe('the console laid out at a desktop and a phone width', { timeout: 60_000 }, () => {
  for (const [width, viewport] of Object.entries(viewports)) {
    it(`fits at ${width} width (${viewport.width} px): sign-in, keys, guide, models, usage, health`, async () => {
      const { context, page, problems } = await openPage(browser, viewport)
      await page.goto(`${served.url}/console/#/keys`)
      await page.getByRole('heading', { name: 'Sign in' }).waitFor()
      // The tab names the console, not the page the address asks for.
      expect(await page.title()).toBe('Sign in · model-gateway console')
      await screenshot(page, `sign-in-${width}`)
      await checkLayout(page, 'sign-in', viewport.width)

      await signIn(page, served.url, adminToken)
      expect(await page.title()).toBe('API keys · model-gateway console')
      await page.locator('tbody tr').nth(2).waitFor()
      const keysShot = await screenshot(page, `keys-${width}`)
      if (width === 'desktop' && process.env.UPDATE_DOCS_SCREENSHOT === '1') {
        mkdirSync(join(repoRoot, 'docs', 'images'), { recursive: true })
        copyFileSync(keysShot, join(repoRoot, 'docs', 'images', 'console-keys.png'))
      }
      await checkLayout(page, 'keys', viewport.width)
      if (width === 'desktop') {
        // Usage today and this month: counts on one line, spend on the next, and the unpriced
        // requests (a note) beside or below it.
        const usage = ['Today', 'This month'].map((name) => `td[data-label="${name}"]`)
        const plain = await lineCounts(page, usage.map((cell) => `${cell}:not(:has(small))`).join())
        expect(plain.length).toBeGreaterThan(0)
        for (const count of plain) expect(count).toBe(2)
        for (const count of await lineCounts(page, usage.join()))
          expect(count).toBeLessThanOrEqual(3)
      }
      expect(await page.locator('tr time[datetime="2027-03-31"]').textContent()).toBe('2027-03-31')

      await page.goto(`${served.url}/console/#/guide`)
      await page.locator('[data-snippet]').first().waitFor()
      await page.getByLabel('Model', { exact: true }).selectOption('gpt-4o-mini')
      await screenshot(page, `guide-${width}`)
      await checkLayout(page, 'guide', viewport.width)
      expect(await codeBlockProblems(page, 'sk-YOUR_KEY')).toEqual([])

      await page.goto(`${served.url}/console/#/models`)
      await page.locator('tr[data-model]').first().waitFor()
      await screenshot(page, `models-${width}`)
      await checkLayout(page, 'models', viewport.width)

      await page.goto(`${served.url}/console/#/usage`)
      await page.locator('figure.chart').first().waitFor()
      await screenshot(page, `usage-${width}`)
      await checkLayout(page, 'usage', viewport.width)
      // Thirty days fit the figure at both widths; had they not, it would open at its end.
      expect(await chartPositions(page)).toEqual([
        { atEnd: true, fits: true, scrollLeft: 0 },
        { atEnd: true, fits: true, scrollLeft: 0 },
      ])
      await page.getByRole('button', { name: '90 days' }).click()
      await expect
        .poll(() => page.locator('figure.chart svg rect').count())
        .toBeGreaterThanOrEqual(90)
      for (const chart of await chartPositions(page)) expect(chart.atEnd).toBe(true)
      await checkLayout(page, 'usage over 90 days', viewport.width)

      await page.goto(`${served.url}/console/#/health`)
      await page.locator('ul.health li').first().waitFor()
      await screenshot(page, `health-${width}`)
      await checkLayout(page, 'health', viewport.width)
      expect(problems).toEqual({ errors: [], violations: [] })
      await context.close()
    })

    it(`shows the new key whole in the created panel and in the guide, at ${width} width`, async () => {
      const { context, page } = await openPage(browser, viewport)
      await signIn(page, served.url, adminToken)
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByLabel('Name', { exact: true }).fill(`wide-${width}`)
      await page.getByRole('button', { name: 'Create key' }).click()
      const panel = page.getByTestId('created-key')
      await panel.getByRole('heading', { name: `Key wide-${width} created` }).waitFor()
      const secret = (await panel.locator('code').textContent())!
      await checkLayout(page, 'created key', viewport.width)
      expect(await codeBlockProblems(page, secret)).toEqual([])
      await page.getByRole('link', { name: 'Use it in the call guide' }).click()
      await page.locator('[data-snippet="curl-chat"]').waitFor()
      expect(await page.locator('[data-snippet="curl-chat"] code').textContent()).toContain(secret)
      await screenshot(page, `guide-with-key-${width}`)
      await checkLayout(page, 'guide with a key', viewport.width)
      expect(await codeBlockProblems(page, secret)).toEqual([])
      await context.close()
    })
  }

  it('fits the keys table in its card at the widths between a phone and a desktop', async () => {
    const { context, page } = await openPage(browser, viewports.desktop)
    await signIn(page, served.url, adminToken)
    await page.locator('tbody tr').nth(2).waitFor()
    // Laptops and tablets in landscape: 1,150 px overflowed before the table learnt to give way.
    for (const width of [1440, 1366, 1150, 1024, 900, 800]) {
      await page.setViewportSize({ width, height: 900 })
      await page.waitForTimeout(50)
      await checkLayout(page, `keys at ${width} px`, width)
      if (width === 1150) await screenshot(page, 'keys-1150')
    }
    await context.close()
  })

  it('says why a spend chart is empty instead of drawing a zero-dollar axis', async () => {
    const { context, page } = await openPage(browser, viewports.phone)
    await signIn(page, served.url, adminToken)
    await page.goto(`${served.url}/console/#/usage`)
    await page.locator('#usage-key option', { hasText: 'other' }).waitFor({ state: 'attached' })
    await page.locator('#usage-key').selectOption({ label: 'other' })
    await page.getByRole('button', { name: 'Show' }).click()
    await page.getByTestId('chart-empty').waitFor()
    expect(await page.getByTestId('chart-empty').textContent()).toBe(
      'Nothing priced to chart: the one request in this span was on a model without a price, so its spend is not known.',
    )
    // The token chart still draws its one day; no axis reads in dollars.
    expect(await page.locator('figure.chart:not(.empty)').count()).toBe(1)
    expect(await page.locator('figure.chart text', { hasText: '$' }).count()).toBe(0)
    await screenshot(page, 'usage-unpriced-phone')
    await checkLayout(page, 'usage unpriced', viewports.phone.width)
    await context.close()
  })
})
