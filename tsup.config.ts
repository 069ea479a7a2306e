import { defineConfig } from 'tsup'

// The dependencies are bundled, tree-shaken (ADR 0016): the config schemas use `zod/mini` and its
// English messages only, where importing the package would load `zod/mini` whole and every
// locale; and a bundled eventsource-parser spares the core a package resolution at import. zod
// stays a dependency for the types of `GatewayConfig`.
const bundled = ['zod', 'eventsource-parser']

export default defineConfig([
  {
    // The core: Web APIs only, so `platform: 'neutral'` keeps Node built-ins out of it.
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    sourcemap: true,
    clean: true,
    noExternal: bundled,
  },
  {
    // Keys, ledger and migrations over a client the user brings: no driver, no `node:`.
    entry: { 'postgres/index': 'src/postgres/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    sourcemap: true,
    noExternal: bundled,
  },
  {
    // The Node bridge and CLI: the only code that imports `node:`.
    entry: { 'node/index': 'src/node/index.ts', 'node/cli': 'src/node/cli.ts' },
    format: ['esm', 'cjs'],
    platform: 'node',
    target: 'node20',
    dts: { entry: { 'node/index': 'src/node/index.ts' } },
    sourcemap: true,
    // `pg` and `redis` are optional peer dependencies, imported only when a config names them.
    external: ['model-gateway', 'pg', 'redis'],
    noExternal: bundled,
  },
  {
    // The Redis usage meter: Web APIs only, over a client the user brings (no driver imported).
    entry: { 'redis/index': 'src/redis/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    sourcemap: true,
    external: ['model-gateway'],
    noExternal: bundled,
  },
])
