// Installs the packages only the tests use — the official SDKs and agent frameworks the tests call
// the gateway with (openai, @anthropic-ai/sdk, @google/genai, the AI SDK, LangChain, the OpenAI
// Agents SDK), msw, playwright-core, fast-check, ajv, ioredis, postgres — from test/clients'
// own package.json and lock, and links test/node_modules to them so that every test file
// resolves them (Node, vitest and tsc all look in test/node_modules before the root's). They are
// two thirds of what the root's `npm install` used to unpack, and `npm start` needs none of them.
// Run by scripts/setup-tests.mjs (the test run's global setup, CI) and by `npm run typecheck`.
//
//   node scripts/install-test-clients.mjs [--force]
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const folder = join(root, 'test', 'clients')
const modules = join(folder, 'node_modules')
// Written after a successful install: the hash of the lock it installed. A lock that changed
// (a pull that bumped an SDK) no longer matches, and the next run installs again.
const stamp = join(modules, '.model-gateway-lock-hash')
const lockHash = createHash('sha256')
  .update(readFileSync(join(folder, 'package-lock.json')))
  .digest('hex')

const installed = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === lockHash
if (!installed || process.argv.includes('--force')) {
  console.log('install-test-clients: installing the SDKs the tests use into test/clients')
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  // `npm ci`: exactly what the lock pins, and it never rewrites the lock (CI checks that the
  // setup leaves the clone as it came).
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], {
    cwd: folder,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  })
  if (result.status !== 0) process.exit(result.status ?? 1)
  writeFileSync(stamp, `${lockHash}\n`)
}

// test/node_modules → test/clients/node_modules ('junction' is a symlink that Windows allows
// without rights; elsewhere the type is ignored).
const link = join(root, 'test', 'node_modules')
const linked = (() => {
  try {
    return (
      lstatSync(link).isSymbolicLink() && readlinkSync(link) === join('clients', 'node_modules')
    )
  } catch {
    return false
  }
})()
if (!linked) {
  rmSync(link, { recursive: true, force: true })
  symlinkSync(join('clients', 'node_modules'), link, 'junction')
}

// A package that both trees hold and that must behave as one: the tests hand zod schemas made
// with test/clients' zod to the gateway (root zod) and to the SDKs. Two versions would differ in
// ways that no test should have to explain, so the two locks must pin the same one.
const versionIn = (base, name) => {
  const manifest = join(base, 'node_modules', name, 'package.json')
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined
}
for (const name of ['zod']) {
  const [ours, theirs] = [versionIn(root, name), versionIn(folder, name)]
  if (ours !== theirs) {
    console.error(
      `install-test-clients: ${name} is ${ours} at the root but ${theirs} in test/clients; pin the same version in test/clients/package.json.`,
    )
    process.exit(1)
  }
}
// And what must be one copy only: a second vitest in test/clients would give the test files an
// `expect` and a `describe` that the runner never collects.
for (const name of ['vitest', '@vitest/expect', '@vitest/runner']) {
  if (versionIn(folder, name) !== undefined) {
    console.error(
      `install-test-clients: test/clients holds its own ${name}; the tests must use the root's. Remove what pulls it in.`,
    )
    process.exit(1)
  }
}
