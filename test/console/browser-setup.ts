import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { createGateway, createMemoryUsageLedger, type GatewayConfig } from '../../src/index'
import { createConsole, createMemoryKeyAdmin } from '../../src/console/index'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { launchBrowser, watchPage, type PageProblems } from '../helpers/browser'
import { repoRoot } from '../helpers/spawn-runtime'

export const adminToken = 'browser-admin-token-0123456789'
export const holderKey = 'sk-browser-holder-key-0123456789'
export const otherKey = 'sk-browser-other-key-0123456789'
/** Where the browser tests leave their screenshots (not committed). */
export const screenshotFolder = join(repoRoot, 'test', 'console', 'screenshots')

/** Desktop and phone widths every page is looked at. */
export const viewports = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
} as const

/**
 * A gateway served on a free port with the mock upstream and its console: a priced model
 * (`gpt-4o-mini`, at the catalogue's price), an unpriced one (`demo-echo`), an Anthropic-protocol
 * group, two config keys (a holder's, confined to `chat`, and another), the memory key admin and
 * usage ledger, key login, and an organisation budget and balance.
 */
export async function serveConsoleGateway(): Promise<ServedGateway> {
  const keys = createMemoryKeyAdmin()
  const today = new Date().toISOString().slice(0, 10)
  const gateway = createGateway({
    groups: [
      {
        id: 'chat',
        protocol: 'openai',
        models: ['gpt-4o-mini', 'demo-echo'],
        upstreams: [{ provider: 'mock' }],
      },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: [
          { name: 'sonnet', upstreamModel: 'claude-sonnet-4-5', fallbacks: ['chat/gpt-4o-mini'] },
        ],
        upstreams: [{ provider: 'mock' }],
      },
    ],
    groupIdRouting: true,
    keys: [
      { key: holderKey, id: 'key-holder', name: 'holder', groups: ['chat'] },
      { key: otherKey, id: 'key-other', name: 'other' },
    ],
    keyStore: keys,
    usageLedger: createMemoryUsageLedger(),
    console: {
      adminTokens: [adminToken],
      keyLogin: true,
      organisation: { budgetUsd: 25, budgetPer: 'month', balance: { usd: 100, since: today } },
    },
  } as GatewayConfig)
  return serveGateway(gateway, { port: 0, console: createConsole(gateway, { keys }) })
}

/** One browser for a test file. */
export function startBrowser(): Promise<Browser> {
  return launchBrowser()
}

/** A fresh browser context (no cookies) whose page reports its problems. */
export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number } = viewports.desktop,
): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  const problems = await watchPage(page)
  return { context, page, problems }
}

/** Signs in through the form, as a person does, and waits for the keys page. */
export async function signIn(page: Page, url: string, secret: string): Promise<void> {
  await page.goto(`${url}/console/`)
  await page.getByLabel(/Admin token|API key/).fill(secret)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor()
  await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor()
}

/** Saves a screenshot of the whole page under test/console/screenshots. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotFolder, { recursive: true })
  const path = join(screenshotFolder, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}
