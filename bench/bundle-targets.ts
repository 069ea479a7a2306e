/**
 * The benchmark's targets as the package ships them: bundled by esbuild, as tsup bundles
 * `dist/`, and run by plain Node.
 *
 * Running `src/` through tsx measures something users never run: tsx compiles with esbuild's
 * `keepNames`, so every closure the gateway creates per request also calls `Object.defineProperty`
 * to set its name (a dictionary-mode property and a map migration in V8), and its loader thread
 * answers the dynamic imports. `bench` and `bench:instructions` therefore bundle `server-process.ts`
 * and, per checkout (`--src`, each `--base`), the gateway's entry points, into a directory of
 * their own; `--tsx` keeps the old way.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type BuildOptions } from 'esbuild'
import { nodeSource } from './node-source'

/** What `server-process.ts` imports from a gateway bundle. */
export type GatewayBundle = {
  createGateway: typeof import('../src/gateway').createGateway
  serveGateway: typeof import('../src/node/transport/serve').serveGateway
  createNodeFetch: typeof import('../src/node/transport/node-fetch').createNodeFetch
  formatRequestLog: typeof import('../src/node/cli/request-log').formatRequestLog
  /** Absent in a checkout from before the CLI's log was batched. */
  createLineBatch?: (write: (text: string) => void) => { write(line: string): void }
}

/** The options tsup gives esbuild for the Node build (`tsup.config.ts`), minus the declarations. */
const common: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The optional peers stay imports, as in the package (they are not loaded on the bench's path).
  external: ['pg', 'redis', '@opentelemetry/api'],
  logLevel: 'error',
}

/** Bundles `server-process.ts` (relay, mock upstream, harness) into `dir`; returns its path. */
export async function bundleServerProcess(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const outfile = join(dir, 'server-process.mjs')
  await build({
    ...common,
    entryPoints: [fileURLToPath(new URL('./server-process.ts', import.meta.url))],
    outfile,
    // autocannon is the parent's; the child's dependencies (none but Node's) are bundled.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  })
  return outfile
}

/**
 * Bundles one checkout's gateway — `createGateway`, `serveGateway`, `createNodeFetch` and the
 * CLI's request log — from its `src` directory into `dir`; returns the bundle's path.
 */
export async function bundleGateway(srcDir: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const entry = join(dir, 'gateway-entry.ts')
  const lines = [
    `export { createGateway } from ${JSON.stringify(join(srcDir, 'gateway.ts'))}`,
    `export { serveGateway } from ${JSON.stringify(nodeSource(srcDir, 'serve'))}`,
    `export { createNodeFetch } from ${JSON.stringify(nodeSource(srcDir, 'node-fetch'))}`,
    `export { formatRequestLog } from ${JSON.stringify(nodeSource(srcDir, 'request-log'))}`,
  ]
  const lineBatch = nodeSource(srcDir, 'line-batch')
  if (existsSync(lineBatch))
    lines.push(`export { createLineBatch } from ${JSON.stringify(lineBatch)}`)
  await writeFile(entry, `${lines.join('\n')}\n`)
  const outfile = join(dir, 'gateway.mjs')
  await build({
    ...common,
    entryPoints: [entry],
    outfile,
    // The checkout's own dependencies (zod, eventsource-parser), bundled as tsup bundles them.
    nodePaths: [join(srcDir, '..', 'node_modules')],
  })
  return outfile
}
