import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { repoRoot } from './helpers/spawn-runtime'

/**
 * Sets up what the suite needs beyond `npm install`, each part only when it is missing or stale
 * (scripts/setup-tests.mjs): the SDKs and test tools only the tests import (test/clients), the
 * runtimes the example tests start, the browser the console's tests drive, the console page's
 * bundle, and `dist/` — the example tests run the package as users get it, not the TypeScript
 * sources. A fresh clone's first test run installs and builds them; later
 * runs find them and go on at once.
 */
export default function setup(): void {
  const result = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'setup-tests.mjs')], {
    cwd: repoRoot,
    stdio: 'inherit',
  })
  if (result.status !== 0) throw new Error('The test setup (scripts/setup-tests.mjs) failed.')
}
