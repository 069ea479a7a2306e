// Installs the runtimes that the example tests start (Bun, Deno, workerd through miniflare,
// Node 24) into test/runtimes. Run by `prepare`, so a contributor's `npm install` / `npm ci`
// sets everything up, while users who install model-gateway from the registry never run it.
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
// `npm install`, not `npm ci`: it installs exactly what the lock pins, but tolerates the lock
// lacking other platforms' optional binaries (@deno/darwin-arm64, …), which the registry these
// machines reach does not serve, so `npm ci` refuses the lock.
const result = spawnSync(npm, ['install', '--no-audit', '--no-fund'], {
  cwd: folder,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
