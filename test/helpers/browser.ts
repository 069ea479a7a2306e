import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'

/**
 * The Chromium the console's browser tests drive: `CHROMIUM_PATH`, else Debian's
 * `chromium-headless-shell` (installed by `scripts/install-test-browser.mjs` from the test setup).
 * Playwright's own browser download is never used. Throws, rather than skipping, when it is
 * missing: these tests exist to prove the console works in a real browser.
 */
export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell'
  if (!existsSync(path)) {
    throw new Error(
      `No Chromium at ${path}: run \`node scripts/install-test-browser.mjs\` (apt-get install -y --no-install-recommends chromium-headless-shell) or set CHROMIUM_PATH.`,
    )
  }
  return path
}

/**
 * Launches Chromium headless. On this machine's closed network it must not reach out (updates,
 * sync, QUIC probes) or it stalls; as root it needs `--no-sandbox`.
 */
export function launchBrowser(): Promise<Browser> {
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--headless',
      ...(root ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** What a page complained about: console errors, uncaught exceptions and CSP violations. */
export type PageProblems = { errors: string[]; violations: string[] }

/**
 * Watches a page for problems from its first script on: every `console.error`, every uncaught
 * error, and every Content-Security-Policy violation (which Chromium reports as a DOM event,
 * collected by a script the browser injects, so the page's CSP does not apply to it).
 */
export async function watchPage(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { errors: [], violations: [] }
  page.on('console', (message) => {
    if (message.type() === 'error') problems.errors.push(message.text())
  })
  page.on('pageerror', (error) => problems.errors.push(`uncaught: ${error.message}`))
  await page.exposeFunction('__reportViolation', (text: string) => problems.violations.push(text))
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __reportViolation(text: string): void })
        .__reportViolation
      report(`${event.violatedDirective} blocked ${event.blockedURI}`)
    })
  })
  return problems
}
