import OpenAI from 'openai'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageLedger } from '../../src/index'
import { createConsole, createMemoryKeyAdmin } from '../../src/console/index'
import { dollars, usd } from '../../src/console/ui/format'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { openPage, screenshot, signIn, startBrowser } from './browser-setup'

/**
 * Response-cache hits and the money they saved, as the console shows them in a real browser: the
 * usage page's figure and its rows per key and per routing group, and the group view's hit rate,
 * for staff and for a key holder. The figures are read from the page and checked against what
 * `GET /v1/usage` says of the same requests.
 */
const adminToken = 'cache-console-admin-token-0123456789'
const faqKey = 'sk-cache-console-faq-key-0123456789'
const otherKey = 'sk-cache-console-other-key-0123456789'

let served: ServedGateway
let browser: Browser
beforeAll(async () => {
  const keys = createMemoryKeyAdmin()
  const gateway = createGateway({
    groups: [
      {
        id: 'faq',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ provider: 'mock' }],
        cache: { ttlSeconds: 600 },
      },
      {
        id: 'chat',
        protocol: 'openai',
        models: [{ name: 'chat-mini', upstreamModel: 'gpt-4o-mini' }],
        upstreams: [{ provider: 'mock' }],
      },
    ],
    keys: [
      { key: faqKey, id: 'key-faq', name: 'faq-app', groups: ['faq'] },
      { key: otherKey, id: 'key-other', name: 'other' },
    ],
    keyStore: keys,
    usageLedger: createMemoryUsageLedger(),
    console: { adminTokens: [adminToken], keyLogin: true },
  })
  served = await serveGateway(gateway, { port: 0, console: createConsole(gateway, { keys }) })
  browser = await startBrowser()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await served?.close()
})

const messages = [{ role: 'user' as const, content: 'What are your opening hours?' }]
const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${served.url}/v1` })

/** `GET /v1/usage` of a key: what the page's figures must agree with. */
async function keyUsage(apiKey: string): Promise<Record<string, any>> {
  const response = await fetch(`${served.url}/v1/usage`, {
    headers: { authorization: `Bearer ${apiKey}` },
  })
  expect(response.status).toBe(200)
  return (await response.json()) as Record<string, any>
}

/** The rows of the usage page's table with this caption, as { label: spend text }. */
async function spendByRow(page: Page, caption: string): Promise<Record<string, string>> {
  const table = page.locator('table.totals', {
    has: page.locator('caption', { hasText: new RegExp(`^\\s*${caption}\\s*$`) }),
  })
  await table.waitFor()
  const rows: Record<string, string> = {}
  for (const row of await table.locator('tbody tr').all()) {
    const label = (await row.locator('th').innerText()).trim()
    rows[label] = (await row.locator('td[data-label="Spend"]').innerText()).trim()
  }
  return rows
}

describe('the console shows response-cache hits and savings', { timeout: 60_000 }, () => {
  let saved = 0
  beforeAll(async () => {
    // A miss, then two hits of it; the same question in a group that does not cache.
    const answers: Array<string | null> = []
    for (let index = 0; index < 3; index++) {
      const { response } = await client(faqKey)
        .chat.completions.create({ model: 'gpt-4o-mini', messages })
        .withResponse()
      answers.push(response.headers.get('x-gateway-cache'))
    }
    expect(answers).toEqual(['miss', 'hit', 'hit'])
    await client(otherKey).chat.completions.create({ model: 'chat-mini', messages })
    const usage = await keyUsage(faqKey)
    expect(usage.usage).toMatchObject({ requests: 3, cache_hits: 2 })
    // Two hits of one call: twice that call's cost, which is the key's whole spend.
    saved = Math.round(usage.spend.saved_usd * 1e9)
    expect(saved).toBeGreaterThan(0)
    expect(saved).toBe(2 * Math.round(usage.spend.total_usd * 1e9))
  })

  it('on the usage page, to staff: the span figure, and hits and savings per key and per group', async () => {
    const { context, page, problems } = await openPage(browser)
    await signIn(page, served.url, adminToken)
    await page.getByRole('link', { name: 'Usage' }).click()
    await page.getByTestId('total-requests').waitFor()
    expect(await page.getByTestId('total-requests').innerText()).toBe('4')
    expect(await page.getByTestId('total-cache-hits').innerText()).toBe(`2, saved ${usd(saved)}`)
    expect(await page.getByTestId('total-spend').innerText()).toContain(
      `(2 cache hits saved ${usd(saved)})`,
    )

    const perGroup = await spendByRow(page, 'Per group')
    expect(Object.keys(perGroup).sort()).toEqual(['chat', 'faq'])
    expect(perGroup['faq']).toBe(`${usd(saved / 2)} (2 cache hits saved ${usd(saved)})`)
    // The group without a cache: its own spend, no hit.
    expect(perGroup['chat']).toBe(usd(saved / 2))
    const perKey = await spendByRow(page, 'Per key')
    expect(perKey['faq-app']).toBe(`${usd(saved / 2)} (2 cache hits saved ${usd(saved)})`)
    expect(perKey['other']).toBe(usd(saved / 2))
    await screenshot(page, 'usage-cache-hits')

    // The group view: whether each group caches, and its hit rate on this instance.
    await page.getByRole('link', { name: 'Models' }).click()
    const faq = page.locator('section.group', { has: page.locator('h2#group-faq') })
    const line = (await faq.locator('[data-cache="on"]').innerText()).replace(/\s+/g, ' ')
    expect(line).toBe(
      `Response cache: 600 s, key scope — hit rate 67 % (2 hits, 1 miss, 0 bypassed), saved ${dollars(saved / 1e9)} (this instance, since it started)`,
    )
    const chat = page.locator('section.group', { has: page.locator('h2#group-chat') })
    expect(await chat.locator('[data-cache="off"]').innerText()).toBe('Response cache: off')
    expect(problems).toEqual({ errors: [], violations: [] })
    await context.close()
  })

  it('on the usage page, to a key holder: their own hits, per group, and no other key', async () => {
    const { context, page, problems } = await openPage(browser)
    await signIn(page, served.url, faqKey)
    await page.getByRole('link', { name: 'Usage' }).click()
    await page.getByTestId('total-requests').waitFor()
    expect(await page.getByTestId('total-requests').innerText()).toBe('3')
    expect(await page.getByTestId('total-cache-hits').innerText()).toBe(`2, saved ${usd(saved)}`)
    expect(await spendByRow(page, 'Per group')).toEqual({
      faq: `${usd(saved / 2)} (2 cache hits saved ${usd(saved)})`,
    })
    expect(await page.locator('caption', { hasText: 'Per key' }).count()).toBe(0)
    expect(problems).toEqual({ errors: [], violations: [] })
    await context.close()
  })
})
