// Installs the browser the console's tests drive: Debian's `chromium-headless-shell`, through
// playwright-core's `executablePath` (Playwright's own browser download cannot reach its CDN
// here). Run by scripts/setup-tests.mjs, beside install-test-runtimes.mjs, from the test run's
// global setup and from CI; users who install model-gateway from the registry never run it.
//
// It runs apt-get only when the browser is missing, on Linux, as root, with apt-get present.
// Anywhere else it says what to install and leaves it to you (the browser tests then fail with
// the same hint). CHROMIUM_PATH names another Chromium for the tests.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const binary = '/usr/bin/chromium-headless-shell'
const hint =
  'Install it with `apt-get install -y --no-install-recommends chromium-headless-shell`, or set CHROMIUM_PATH to a Chromium.'

if (process.env.CHROMIUM_PATH !== undefined || existsSync(binary)) process.exit(0)
const root = typeof process.getuid === 'function' && process.getuid() === 0
if (process.platform !== 'linux' || !root || !existsSync('/usr/bin/apt-get')) {
  console.warn(`install-test-browser: ${binary} is missing and cannot be installed here. ${hint}`)
  process.exit(0)
}

const install = () =>
  spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium-headless-shell'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  }).status
// A machine whose package lists are stale or empty needs them read first.
if (install() !== 0) {
  spawnSync('apt-get', ['update'], { stdio: 'inherit' })
  if (install() !== 0) {
    console.error(
      `install-test-browser: apt-get could not install chromium-headless-shell. ${hint}`,
    )
    process.exit(1)
  }
}
