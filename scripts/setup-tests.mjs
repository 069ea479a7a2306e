// Everything the test suite needs beyond `npm install`: the SDKs and test tools only the tests
// import (into test/clients, linked as test/node_modules), the runtimes the example tests start
// (Bun, Deno, workerd through Miniflare, Node 24, into test/runtimes), the browser the console's
// tests drive, and the builds the tests import (the console page, `dist/`). Each step does nothing when
// its result is already there, so the test run's global setup calls it every time; CI calls it
// right after `npm ci` (`npm run setup:tests`). They used to run in `prepare`, which made every
// `npm install` — including one that only wants `npm start` — wait about a minute and a half for
// them.
//
//   node scripts/setup-tests.mjs
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const scripts = dirname(fileURLToPath(import.meta.url))
for (const script of [
  'install-test-clients.mjs',
  'install-test-runtimes.mjs',
  'install-test-browser.mjs',
  'ensure-build.mjs',
]) {
  const result = spawnSync(process.execPath, [join(scripts, script)], { stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}
