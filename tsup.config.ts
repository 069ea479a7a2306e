import { defineConfig, type Options } from 'tsup'

// The dependencies are bundled, tree-shaken (ADR 0016): the config schemas use `zod/mini` and its
// English messages only, where importing the package would load `zod/mini` whole and every
// locale; and a bundled eventsource-parser spares the core a package resolution at import. zod
// stays a dependency for the types of `GatewayConfig`.
const bundled = ['zod', 'eventsource-parser']

// No source maps in the package: the bundles are not minified, so a stack trace already points at
// readable code with the source's own names, while maps carried every source file a second time
// (`sourcesContent`, the bundled zod's included) — 9 MB of the 13.3 MB the package unpacked to.
// Maps without `sourcesContent` would point at `src/`, which the package does not ship.

/** What the Node bridge's builds share. */
const nodeBuild: Options = {
  platform: 'node',
  target: 'node20',
  // `pg` and `redis` are optional peer dependencies, imported only when a config names them.
  external: ['model-gateway', 'pg', 'redis'],
  noExternal: bundled,
}

export default defineConfig([
  {
    // The core: Web APIs only, so `platform: 'neutral'` keeps Node built-ins out of it.
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    clean: true,
    noExternal: bundled,
  },
  {
    // The parts plug-ins are built from (docs/public-api.md). A build of its own, so the core's
    // ES module stays one file: what it bundles (selection policies, the price catalogue, about
    // 50 kB) is carried twice, here and in the core, but nothing in it has an identity to share —
    // no class, and its frozen defaults are only read.
    entry: { extend: 'src/extend.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    noExternal: bundled,
  },
  {
    // Keys, ledger and migrations over a client the user brings: no driver, no `node:`.
    entry: { 'postgres/index': 'src/postgres/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    noExternal: bundled,
  },
  {
    // The Node bridge and CLI: the only code that imports `node:`. One ESM build for both, so they
    // share one chunk; the CLI is an ES module only (the `bin`), so the CommonJS build below has
    // the bridge alone.
    // The console's ES module is built here too: the CLI serves it, so the two share its chunk
    // instead of carrying two copies. It imports no `node:` module (lint), so the chunks it loads
    // hold none either: esbuild splits by the entries that use a module, and only the bridge's
    // and CLI's modules import Node built-ins (test/console/console-size.test.ts walks its graph).
    entry: {
      'node/index': 'src/node/index.ts',
      'node/cli': 'src/node/cli/cli.ts',
      'console/index': 'src/console/index.ts',
    },
    format: ['esm'],
    ...nodeBuild,
    dts: { entry: { 'node/index': 'src/node/index.ts', 'console/index': 'src/console/index.ts' } },
  },
  {
    entry: { 'node/index': 'src/node/index.ts' },
    format: ['cjs'],
    ...nodeBuild,
    dts: { entry: { 'node/index': 'src/node/index.ts' } },
  },
  {
    // The web console: its page and assets are strings in the bundle (scripts/build-console.mjs
    // writes them before tsup runs), so it reads no file at run time on any runtime. Its ES module
    // is built with the Node bridge's (above); this is its CommonJS one.
    entry: { 'console/index': 'src/console/index.ts' },
    format: ['cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    external: ['model-gateway'],
    noExternal: bundled,
  },
  {
    // The Redis usage meter: Web APIs only, over a client the user brings (no driver imported).
    entry: { 'redis/index': 'src/redis/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    external: ['model-gateway'],
    noExternal: bundled,
  },
])
