// Installs the runtimes that the example tests start (Bun, Deno, workerd through miniflare,
// Node 24) into test/runtimes. Run by scripts/setup-tests.mjs, which the test run's global setup
// and CI call: `npm install` stays fast for those who only want `npm start`, and users who install
// model-gateway from the registry never run it.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'runtimes')
const bins = ['bun', 'deno', 'node', 'workerd'].map((name) =>
  join(folder, 'node_modules', '.bin', name),
)
if (bins.every((bin) => existsSync(bin)) && !process.argv.includes('--force')) process.exit(0)

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
// `npm ci`: installs exactly what the lock pins and never writes the lock, so a contributor's
// `npm install` leaves the working tree clean. The lock lists every platform's optional binaries
// (@deno/darwin-arm64, @oven/bun-windows-x64, …): one that lacks some is out of step with the
// packages' own manifests, and `npm install` would add them, rewriting the lock on every clone.
const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], {
  cwd: folder,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
