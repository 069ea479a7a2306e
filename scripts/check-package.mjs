// Checks a packed tarball (`npm pack`) the way a user receives it: the files users need are in it,
// nothing else is (sources, tests, source maps), its package.json carries no scripts, and it stays
// within its size budget. Run by CI after `npm pack`; prints the sizes.
//
//   node scripts/check-package.mjs model-gateway-0.1.0.tgz
import { readFileSync, statSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

/**
 * The budget: 3.2 MB packed and 13.3 MB unpacked before source maps left the package, 0.8 MB and
 * 3.3 MB after. Raise it on purpose, in the commit that needs it, never to make CI pass. The
 * console (issue 21) took it from 3.7 MB unpacked to 4.1 MB: its CommonJS build (230 KB, the page's
 * 61 KB of assets among them; its ES module shares the Node bridge's chunks) and its types.
 * Telemetry, embeddings and per-model health (issues 22, 23, 17) took it to 1.08 MB packed and
 * 4.48 MB unpacked: about 45 KB more core source, which the package carries four times (the core's
 * ES module and CommonJS builds, and the Node bridge's two, each of which bundles the core), plus
 * the lazily imported OpenTelemetry module twice (11.6 KB each). The next lever is the bridge
 * importing the core from `model-gateway` instead of bundling it (about 1.3 MB unpacked).
 * The seams of issue 29 took it to 1.21 MB packed and 4.99 MB unpacked: the `model-gateway/extend`
 * entry (about 100 KB of ES module and CommonJS, 90 KB of declarations; a build of its own so the
 * core's ES module stays one file), about 30 KB more core source for upstream kinds, interceptors,
 * open routes and metered subjects (carried four times, as above), and the CHANGELOG. That lever is
 * still the next one. The Converse family of issue 31 (about 1,100 lines of codec, the Bedrock
 * profiles and prices, carried four times) took it to 1.243 MB packed and 5.153 MB unpacked, so
 * the budget was 1.27 MB packed and 5.25 MB unpacked. The rest of issues 31–33 — the Bedrock,
 * Vertex AI and Azure kinds with SigV4, the Google JWT, the AWS/Google/Azure Node chains and the
 * event-stream decoder (about 6,000 lines of source), teams in the core, PostgreSQL and the console,
 * and the regional surcharges — took it to 1.425 MB packed and 5.893 MB unpacked, so the budget
 * is 1.45 MB packed and 6.0 MB unpacked. The lever above is now worth more: `dist/node/index.cjs`
 * alone is 1.0 MB, nearly all of it the bundled core.
 * Issues 34–37 took it to 1.569 MB packed and 6.493 MB unpacked: the MCP gateway (about 80 KB of
 * source in the core, its stdio transport in the bridge), the response cache (about 30 KB),
 * priority tiers with latency and cost balancing (about 25 KB), all carried four times, and the
 * Redis Cluster and Sentinel connections in the bridge (about 16 KB, carried twice). So the budget
 * is 1.62 MB packed and 6.75 MB unpacked. The bridge's bundled core is still the lever: about
 * 2 MB of the 6.5 MB unpacked (`dist/node/index.cjs` and the bridge's ES module chunk).
 */
const maxPackedBytes = 1_620_000
const maxUnpackedBytes = 6_750_000

const required = [
  'dist/index.js',
  'dist/index.cjs',
  'dist/index.d.ts',
  'dist/index.d.cts',
  'dist/extend.js',
  'dist/extend.cjs',
  'dist/extend.d.ts',
  'dist/extend.d.cts',
  'dist/node/index.js',
  'dist/node/index.cjs',
  'dist/node/index.d.ts',
  'dist/node/cli.js',
  'dist/postgres/index.js',
  'dist/postgres/index.cjs',
  'dist/postgres/index.d.ts',
  'dist/redis/index.js',
  'dist/redis/index.cjs',
  'dist/redis/index.d.ts',
  'dist/console/index.js',
  'dist/console/index.cjs',
  'dist/console/index.d.ts',
  'package.json',
  'README.md',
  'CHANGELOG.md',
  'LICENSE',
  'config.schema.json',
]

const path = process.argv[2]
if (path === undefined) {
  console.error('usage: node scripts/check-package.mjs <tarball>')
  process.exit(2)
}

/** The files of a tar archive: name → content (ustar headers, 512-byte blocks). */
function readTar(buffer) {
  const files = new Map()
  for (let offset = 0; offset + 512 <= buffer.length;) {
    const header = buffer.subarray(offset, offset + 512)
    const field = (start, length) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '')
    const name = field(0, 100)
    if (name === '') break
    const prefix = field(345, 155)
    const size = parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1)
    const body = buffer.subarray(offset + 512, offset + 512 + size)
    if (type === '0' || type === '') files.set(prefix === '' ? name : `${prefix}/${name}`, body)
    offset += 512 + Math.ceil(size / 512) * 512
  }
  return files
}

const packed = statSync(path).size
const entries = readTar(gunzipSync(readFileSync(path)))
const files = new Map([...entries].map(([name, body]) => [name.replace(/^package\//, ''), body]))
const unpacked = [...files.values()].reduce((sum, body) => sum + body.length, 0)
const problems = []
for (const file of required) if (!files.has(file)) problems.push(`missing: ${file}`)
for (const file of files.keys()) {
  if (/^(src|test|examples|bench|scripts)\//.test(file)) problems.push(`not for users: ${file}`)
  if (file.endsWith('.map')) problems.push(`source map: ${file}`)
}
const manifest = JSON.parse(files.get('package.json')?.toString('utf8') ?? '{}')
if (manifest.scripts !== undefined) {
  problems.push(`package.json keeps scripts (${Object.keys(manifest.scripts).join(', ')})`)
}
if (packed > maxPackedBytes)
  problems.push(`packed ${packed} B, over the budget of ${maxPackedBytes}`)
if (unpacked > maxUnpackedBytes) {
  problems.push(`unpacked ${unpacked} B, over the budget of ${maxUnpackedBytes}`)
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`
console.log(`${files.size} files, ${kB(packed)} packed, ${kB(unpacked)} unpacked`)
for (const [file, body] of [...files].sort(([, a], [, b]) => b.length - a.length)) {
  console.log(`  ${kB(body.length).padStart(9)}  ${file}`)
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`package: ${problem}`)
  process.exit(1)
}
