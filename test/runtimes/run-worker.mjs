// Bundles a Worker entry and serves it with workerd through Miniflare, printing its URL.
// Usage: test/runtimes/node_modules/.bin/node test/runtimes/run-worker.mjs <worker.ts>
// Runs under Node >= 22 (miniflare 4's floor), hence the Node 24 in test/runtimes.
import { resolve } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'

const entry = resolve(process.argv[2] ?? 'examples/workers/worker.ts')
// Workers load one module graph, so bare imports (`model-gateway` resolves to dist/ through the
// package's own `exports`; zod; eventsource-parser) are bundled the way wrangler does. esbuild
// resolves from the root node_modules, where tsup brings it.
const bundle = await build({
  entryPoints: [entry],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['browser', 'module', 'main'],
  logLevel: 'warning',
})
const worker = new Miniflare({
  // A bare name: Miniflare resolves module paths against the cwd and rejects ones outside it.
  modules: [{ type: 'ESModule', path: 'worker.js', contents: bundle.outputFiles[0].text }],
  compatibilityDate: '2025-09-01',
  // The worker's `env`: the variables the example config reads (`${CONSOLE_ADMIN_TOKEN}`).
  bindings: Object.fromEntries(
    ['CONSOLE_ADMIN_TOKEN'].flatMap((name) =>
      process.env[name] === undefined ? [] : [[name, process.env[name]]],
    ),
  ),
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 8787),
})
const url = await worker.ready
console.log(`model-gateway listening on ${url.origin}`)

const stop = () => {
  void worker.dispose().then(() => process.exit(0))
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
