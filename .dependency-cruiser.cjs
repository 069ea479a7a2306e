// The source tree's import rules, checked by `npm run lint` (docs/architecture.md, ADR 0022).
//
// `layers` runs from the bottom up: a module may import its own layer and the layers below it,
// never one above. Type-only imports count (`tsPreCompilationDeps`), and no import cycle is
// allowed anywhere in src/, whatever the layers.

/** Bottom first. Each entry: the layer's name and the paths (regular expressions) it holds. */
const layers = [
  ['foundation', ['^src/internal/', '^src/errors[.]ts$', '^src/protocols/protocol-name[.]ts$']],
  ['wire', ['^src/http/', '^src/sse/']],
  ['canonical', ['^src/canonical/']],
  ['domain', ['^src/auth/', '^src/models/', '^src/pricing/', '^src/usage/']],
  ['protocols', ['^src/protocols/(?!protocol-name[.]ts$)']],
  [
    'routing',
    [
      '^src/upstream/',
      '^src/routing/',
      '^src/failover/',
      '^src/observability/',
      '^src/response-store/',
    ],
  ],
  ['intercept', ['^src/intercept/', '^src/cache/']],
  ['runtime', ['^src/gateway-runtime[.]ts$']],
  ['relay', ['^src/relay/']],
  ['handlers', ['^src/handlers/', '^src/mcp/(?!redis/)']],
  [
    'gateway',
    [
      '^src/config/',
      '^src/gateway[.]ts$',
      '^src/gateway-(?!runtime)[a-z-]+[.]ts$',
      '^src/index[.]ts$',
      '^src/extend[.]ts$',
    ],
  ],
  ['adapters', ['^src/mcp/redis/', '^src/redis/', '^src/postgres/', '^src/console/', '^src/node/']],
]

const upward = layers.slice(0, -1).map(([name, paths], index) => ({
  name: `layer-${name}`,
  comment: `${name} imports a layer above it (docs/architecture.md › Layers)`,
  severity: 'error',
  from: { path: paths },
  to: { path: layers.slice(index + 1).flatMap(([, above]) => above) },
}))

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle (type-only imports included)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      comment: 'every src/ module belongs to a layer: add its path to .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: layers.flatMap(([, paths]) => paths) },
      to: {},
    },
    ...upward,
    {
      // The bridge (`toNodeHandler`, `createNodeFetch`, `serveGateway`) is what an embedding
      // application imports; the CLI is built on it, never the other way round.
      name: 'node-transport-below-cli',
      comment: 'src/node/transport/ imports the CLI (src/node/cli/): the CLI sits on the bridge',
      severity: 'error',
      from: { path: '^src/node/transport/' },
      to: { path: '^src/node/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '[.]d[.]ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: '^src/',
  },
}
