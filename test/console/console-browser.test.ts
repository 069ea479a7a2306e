import { execFile } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import OpenAI from 'openai'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtInPriceRows } from '../../src/extend'
import type { ServedGateway } from '../../src/node/index'
import { serveCli } from '../helpers/cli'
import { repoRoot, testModules } from '../helpers/spawn-runtime'
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

const run = promisify(execFile)

let served: ServedGateway
let browser: Browser
beforeAll(async () => {
  served = await serveConsoleGateway()
  browser = await startBrowser()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await served?.close()
})

/** The openai SDK as a user runs it, with its defaults, against the served gateway. */
const openai = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${served.url}/v1` })
const chat = (apiKey: string, content = 'from the browser test') =>
  openai(apiKey).chat.completions.create({
    model: 'gpt-4o-mini',
    max_tokens: 20,
    messages: [{ role: 'user', content }],
  })

/** Creates a key through the form and returns its secret, read from the page. */
async function createKey(page: Page, name: string): Promise<string> {
  await page.getByRole('button', { name: 'Create key' }).click()
  await page.getByLabel('Name', { exact: true }).fill(name)
  await page.getByRole('button', { name: 'Create key' }).click()
  const panel = page.getByTestId('created-key')
  await panel.getByRole('heading', { name: `Key ${name} created` }).waitFor()
  return (await panel.locator('code').textContent())!
}

/** The row of a key on the keys page. */
const keyRow = (page: Page, name: string) =>
  page
    .locator('tbody tr')
    .filter({ has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) })

describe('the console in a real browser', { timeout: 60_000 }, () => {
  it('signs in with the admin token and out again; a wrong token gets a message', async () => {
    const { context, page } = await openPage(browser)
    await page.goto(`${served.url}/console/`)
    await page.getByLabel('Admin token or API key').fill('not-the-token-0123456789')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'That token or key is not valid.',
    )

    await page.getByLabel('Admin token or API key').fill(adminToken)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
    expect(await page.locator('.who').textContent()).toContain('Admin (admin)')
    const [cookie] = await context.cookies()
    expect(cookie).toMatchObject({
      name: 'mg_console',
      path: '/console',
      httpOnly: true,
      sameSite: 'Strict',
    })

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect((await page.request.get(`${served.url}/console/api/keys`)).status()).toBe(401)
    await context.close()
  })

  it('creates a key, copies it, uses it through the openai SDK, shows its usage and spend, revokes it (then 401)', async () => {
    const { context, page } = await openPage(browser)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.url })
    await signIn(page, served.url, adminToken)
    const secret = await createKey(page, 'browser-key')
    expect(secret).toMatch(/^sk-mg-[a-z0-9]{12}-[A-Za-z0-9]{48}$/)
    await page.getByRole('button', { name: 'Copy the new key' }).click()
    await page
      .getByRole('button', { name: 'Copy the new key' })
      .filter({ hasText: 'Copied' })
      .waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)

    const copied = await page.evaluate(() => navigator.clipboard.readText())
    const answer = await chat(copied, 'pasted from the clipboard')
    expect(answer.choices[0]?.message.content).toBe('You said: pasted from the clipboard')

    await page.reload()
    const row = keyRow(page, 'browser-key')
    await row.waitFor()
    // Counts on one line, spend on the next.
    const today = await row.locator('td[data-label="Today"]').innerText()
    expect(today).toMatch(/^1 req · \d+ tok\n\$0\.0+[1-9]\d*$/)
    // The key's secret is never on the page again: the list shows its public part.
    expect(await page.content()).not.toContain(secret)

    await page.getByRole('link', { name: 'Usage' }).click()
    await page.getByTestId('total-requests').waitFor()
    expect(await page.getByTestId('total-spend').textContent()).toMatch(/^\$0\.0+[1-9]/)
    await screenshot(page, 'usage-after-a-request')

    await page.getByRole('link', { name: 'API keys' }).click()
    await keyRow(page, 'browser-key').getByRole('button', { name: 'Revoke browser-key' }).click()
    await keyRow(page, 'browser-key').getByRole('button', { name: 'Confirm revoke' }).click()
    await page.getByText('Revoked browser-key: it is refused from now on.').waitFor()
    await expect(chat(secret)).rejects.toMatchObject({ status: 401 })
    await context.close()
  })

  it('edits a budget, and the key is refused past it', async () => {
    const { context, page } = await openPage(browser)
    await signIn(page, served.url, adminToken)
    const secret = await createKey(page, 'budget-key')
    await keyRow(page, 'budget-key').getByRole('button', { name: 'Edit budget-key' }).click()
    // A few requests' worth: gpt-4o-mini costs about $0.000005 for each of these.
    await page.getByLabel('Budget per UTC day (USD)').fill('0.00003')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Saved budget-key.').waitFor()
    let answered = 0
    let refusal: unknown
    for (let attempt = 0; attempt < 30 && refusal === undefined; attempt += 1) {
      try {
        await chat(secret)
        answered += 1
      } catch (error) {
        refusal = error
      }
    }
    expect(answered).toBeGreaterThan(0)
    expect(refusal).toMatchObject({ status: 429, code: 'budget_exceeded' })
    await page.reload()
    expect(
      await keyRow(page, 'budget-key').locator('td[data-label="Limits and budget"]').textContent(),
    ).toMatch(/\$0\.0000[0-9]+ of \$0\.00003 per day/)
    await context.close()
  })

  it("shows the server's base address, and the guide's curl snippet, run as shown, is answered", async () => {
    const { context, page } = await openPage(browser)
    await signIn(page, served.url, adminToken)
    expect(await page.getByTestId('base-url').textContent()).toBe(`${served.url}/v1`)
    expect(await page.getByTestId('host-url').textContent()).toBe(served.url)
    const secret = await createKey(page, 'guide-key')
    await page.getByRole('link', { name: 'Use it in the call guide' }).click()
    await page.getByRole('heading', { level: 1, name: 'Call guide' }).waitFor()
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-4o-mini')
    expect(await page.getByLabel('Key', { exact: true }).inputValue()).not.toBe('')
    // Every snippet but the key-only one carries the base address.
    const snippets = await page
      .locator('[data-snippet]:not([data-snippet="codex-key"]) code')
      .allTextContents()
    expect(snippets.length).toBeGreaterThanOrEqual(19)
    for (const code of snippets) expect(code).toContain(served.url)
    const curl = (await page.locator('[data-snippet="curl-chat"] code').textContent())!
    expect(curl).toContain(secret)
    const { stdout } = await run('bash', ['-c', curl])
    const completion = JSON.parse(stdout) as { choices: Array<{ message: { content: string } }> }
    expect(completion.choices[0]?.message.content).toBe('You said: Hello!')
    await context.close()
  })

  it("lists the catalogue with the catalogue's prices, their source and date, and unpriced models as such", async () => {
    const { context, page } = await openPage(browser)
    await signIn(page, served.url, adminToken)
    await page.getByRole('link', { name: 'Models' }).click()
    const row = builtInPriceRows().find((item) => item.model === 'gpt-4o-mini')!
    const cell = page.locator('tr[data-model="gpt-4o-mini"] td[data-label="Price per 1M tokens"]')
    await cell.waitFor()
    const text = (await cell.textContent())!
    expect(text).toContain(
      `in $${row.price.input} · out $${row.price.output} · cache read $${row.price.cachedInput}`,
    )
    expect(text).toContain(`as of ${row.asOf}`)
    expect(await cell.locator('[data-testid="price-source"] a').getAttribute('href')).toBe(
      row.source,
    )
    // The same numbers GET /v1/models lists for a key without a multiplier of its own.
    const listed = (await (
      await fetch(`${served.url}/v1/models`, { headers: { authorization: `Bearer ${otherKey}` } })
    ).json()) as { data: Array<{ id: string; pricing?: { input: number; output: number } }> }
    const pricing = listed.data.find((model) => model.id === 'gpt-4o-mini')!.pricing!
    expect([pricing.input, pricing.output]).toEqual([row.price.input, row.price.output])
    expect(
      await page.locator('tr[data-model="demo-echo"] [data-testid="price"]').textContent(),
    ).toBe('unpriced')
    expect(
      await page.locator('tr[data-model="sonnet"] td[data-label="Fallbacks"]').textContent(),
    ).toContain('chat/gpt-4o-mini')
    await context.close()
  })

  it('confines a key holder to their own key, in the page and through <mount>/api', async () => {
    await chat(otherKey, 'another key at work')
    const { context, page } = await openPage(browser)
    await signIn(page, served.url, holderKey)
    expect(await page.locator('.who').textContent()).toContain('holder (key holder)')
    expect(await page.locator('tbody tr strong').allTextContents()).toEqual(['holder'])
    expect(await page.getByTestId('organisation').count()).toBe(0)
    expect(await page.locator('nav a').allTextContents()).toEqual([
      'API keys',
      'Call guide',
      'Models',
      'Usage',
    ])
    await page.goto(`${served.url}/console/#/health`)
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
    expect(await page.content()).not.toContain('key-other')

    await page.getByRole('link', { name: 'Models' }).click()
    await page.locator('h2', { hasText: 'chat' }).waitFor()
    expect(await page.locator('section.group h2').allTextContents()).toEqual([
      expect.stringMatching(/^chat/),
    ])
    await page.getByRole('link', { name: 'Usage' }).click()
    await page.locator('#since').waitFor()
    expect(await page.locator('#usage-key').count()).toBe(0)

    // The API refuses the holder whatever the page shows.
    const api = (path: string, init: { method?: string; data?: unknown; csrf?: string } = {}) =>
      page.request.fetch(`${served.url}/console/api${path}`, {
        method: init.method ?? 'GET',
        headers: {
          origin: served.url,
          ...(init.csrf === undefined
            ? {}
            : { 'x-csrf-token': init.csrf, 'content-type': 'application/json' }),
        },
        ...(init.data === undefined ? {} : { data: init.data }),
      })
    const { csrf } = (await (await api('/session')).json()) as { csrf: string }
    expect((await api('/usage?key=key-other')).status()).toBe(404)
    expect(
      (await api('/keys/key-other', { method: 'PATCH', data: { name: 'x' }, csrf })).status(),
    ).toBe(404)
    expect((await api('/keys/key-other/revoke', { method: 'POST', data: {}, csrf })).status()).toBe(
      404,
    )
    expect((await api('/health')).status()).toBe(403)
    const keys = (await (await api('/keys')).json()) as { keys: Array<{ id: string }> }
    expect(keys.keys.map((key) => key.id)).toEqual(['key-holder'])
    await context.close()
  })

  it('a newcomer: npm start, the printed address and token, a key created, a guide setting pasted and answered', async () => {
    const cli = await serveCli(
      ['--config', join(repoRoot, 'examples/gateway.config.json'), '--port', '0', '--print-demo'],
      { CONSOLE_ADMIN_TOKEN: '' },
    )
    try {
      await expect.poll(() => cli.output()).toContain('Sign in with the admin token')
      const address = /^Console: (\S+)$/m.exec(cli.output())![1]!
      const token = /admin token (\S+) \(made up/.exec(cli.output())![1]!
      const { context, page, problems } = await openPage(browser)
      await page.goto(address)
      await page.getByLabel('Admin token').fill(token)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByTestId('base-url').waitFor()
      expect(await page.getByTestId('base-url').textContent()).toBe(`${cli.url}/v1`)
      await createKey(page, 'my-first-key')
      await page.getByRole('link', { name: 'Use it in the call guide' }).click()
      const openaiTs = (await page.locator('[data-snippet="openai-ts"] code').textContent())!
      const file = join(testModules, '.cache', 'newcomer.mts')
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, openaiTs)
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: repoRoot })
      rmSync(file)
      expect(stdout.trim()).toBe('You said: Hello!')
      expect(problems).toEqual({ errors: [], violations: [] })
      await context.close()
    } finally {
      await cli.stop()
    }
  })

  for (const [width, viewport] of Object.entries(viewports)) {
    it(`has no console error and no CSP violation on any page, at ${width} width, and works by keyboard`, async () => {
      await chat(holderKey, 'something to chart')
      const { context, page, problems } = await openPage(browser, viewport)
      await signIn(page, served.url, adminToken)
      const pages: Array<[string, string, () => Promise<unknown>]> = [
        ['keys', 'API keys', () => page.getByTestId('base-url').waitFor()],
        ['guide', 'Call guide', () => page.locator('[data-snippet]').first().waitFor()],
        ['models', 'Models', () => page.locator('tr[data-model]').first().waitFor()],
        ['usage', 'Usage', () => page.locator('figure.chart').first().waitFor()],
        ['health', 'Health', () => page.locator('ul.health li').first().waitFor()],
      ]
      for (const [id, title, loaded] of pages) {
        await page.goto(`${served.url}/console/#/${id}`)
        await page.getByRole('heading', { level: 1, name: title }).waitFor()
        await loaded()
        // Every form control has a label a screen reader reads.
        const unlabelled = await page.evaluate(() =>
          [...document.querySelectorAll('input, select, textarea')]
            .filter(
              (control) =>
                (control as HTMLInputElement).labels?.length === 0 &&
                !control.getAttribute('aria-label'),
            )
            .map((control) => control.outerHTML),
        )
        expect(unlabelled, id).toEqual([])
        if (width === 'phone') {
          // Nothing wider than the phone: no sideways scrolling of the page.
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth),
            id,
          ).toBeLessThanOrEqual(viewport.width)
        }
      }
      expect(problems).toEqual({ errors: [], violations: [] })

      // By keyboard: the skip link first, then the pages' links, with a visible focus ring.
      await page.goto(`${served.url}/console/#/keys`)
      await page.getByTestId('base-url').waitFor()
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
        'Skip to the page',
      )
      await page.keyboard.press('Tab')
      await page.keyboard.press('Tab')
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement
        return { text: element.textContent, outline: getComputedStyle(element).outlineStyle }
      })
      expect(focused).toEqual({ text: 'Call guide', outline: 'solid' })
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { level: 1, name: 'Call guide' }).waitFor()
      expect(problems).toEqual({ errors: [], violations: [] })
      await context.close()
    })
  }
})
