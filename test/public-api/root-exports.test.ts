import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/spawn-runtime'

/**
 * Every name the root entry (`model-gateway`, src/index.ts) exports, grouped as src/index.ts
 * groups them; `type ` marks a type-only export. This is the one list to edit when the root
 * changes on purpose (and docs/public-api.md with it). The rule for what belongs here:
 * docs/decisions/0031-public-api.md.
 */
const root = [
  // The gateway
  'createGateway',
  'type GatewayCloseOptions',
  'type GatewayContext',
  'type GatewayFetch',
  'type GatewayHandler',
  // Config
  'defaultForwardHeaders',
  'GatewayConfigError',
  'type ConfigIssue',
  'type GatewayConfig',
  // Errors
  'GatewayError',
  'isGatewayError',
  'type GatewayErrorCode',
  'type GatewayErrorOptions',
  'type UpstreamErrorDetail',
  // Key store (plug-in interface)
  'createCompositeKeyStore',
  'createMemoryKeyStore',
  'hashKey',
  'type HashedKey',
  'type KeyHasher',
  'type KeyLimits',
  'type KeyRecord',
  'type KeyStore',
  'type MemoryKeyStoreOptions',
  'type MoneyBudget',
  // Teams (plug-in interface)
  'createMemoryTeamStore',
  'type Organisation',
  'type PerUserLimits',
  'type Team',
  'type TeamStore',
  // Group registry (plug-in interface)
  'createStaticGroupRegistry',
  'type Group',
  'type GroupRegistry',
  'type ModelEntry',
  // Upstream provider (plug-in interface)
  'createHttpProvider',
  'createMockProvider',
  'type HttpProviderOptions',
  'type MockProviderOptions',
  'type ProtocolName',
  'type UpstreamCall',
  'type UpstreamOperation',
  'type UpstreamProvider',
  // Upstream kinds (plug-in interface)
  'defineUpstreamKind',
  'upstreamSpecificationVersion',
  'type ChunkSource',
  'type HttpWire',
  'type PreparedRequest',
  'type PrepareHook',
  'type SignHook',
  'type UpstreamKind',
  'type UpstreamKindContext',
  'type UpstreamKindIssue',
  'type UpstreamKindSchema',
  'type UpstreamStreamAnswer',
  // Usage meter (plug-in interface)
  'createMemoryUsageMeter',
  'type KeyLimitSettings',
  'type KeyUsageSummary',
  'type MemoryUsageMeter',
  'type MemoryUsageMeterOptions',
  'type Reservation',
  'type ReserveRequest',
  'type ReserveResult',
  'type SettleResult',
  'type UsageMeter',
  'type UsageRecord',
  // Usage ledger and reports (plug-in interfaces)
  'createMemoryUsageLedger',
  'type DailyUsage',
  'type MemoryUsageLedger',
  'type MemoryUsageLedgerOptions',
  'type UsageLedger',
  'type UsageQuery',
  'type UsageReport',
  'type UsageReports',
  'type UsageTotals',
  // Response store (plug-in interface)
  'createMemoryResponseStore',
  'type MemoryResponseStoreOptions',
  'type ResponseStore',
  'type StoredJson',
  'type StoredResponse',
  // Response cache store (plug-in interface)
  'createMemoryResponseCache',
  'type MemoryResponseCacheOptions',
  'type ResponseCacheStore',
  // Upstream selector and circuit store (plug-in interfaces); `gateway.health()`'s answer
  'createHealthSelector',
  'createMemoryCircuitStore',
  'type AttemptVerdict',
  'type CircuitStore',
  'type HealthSelectorOptions',
  'type SelectContext',
  'type Selection',
  'type Unavailable',
  'type UpstreamHealth',
  'type UpstreamSelector',
  // Events, telemetry, metrics and probes
  'createMetricsRoute',
  'createProbes',
  'createPrometheusMetrics',
  'genAiConventionsVersion',
  'type BudgetAlert',
  'type PrometheusMetrics',
  'type PrometheusMetricsOptions',
  'type ProbesOptions',
  'type RequestEvent',
  'type RouteHandler',
  'type TelemetryOption',
  // Call interceptors (plug-in interface)
  'jsonTextAnswer',
  'sseAnswer',
  'type AnswerHeaders',
  'type AnswerStream',
  'type CallInterceptor',
  'type GatewayAnswer',
  'type InterceptedCall',
  'type SettledCall',
  // Metered subjects (part of the usage meter's interface)
  'type MeteredSubject',
  'type MeteredSubjectKind',
  'type MeteredSubjectRef',
  'type SubjectLimits',
]

/** An entry's exports as `name` (a value) or `type Name` (type-only), through the checker. */
function exportsOf(program: ts.Program, file: string): string[] {
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    const typeOnly = symbol.declarations?.some(
      (declaration) =>
        ts.isExportSpecifier(declaration) && ts.isTypeOnlyExportDeclaration(declaration),
    )
    return !typeOnly && target.flags & ts.SymbolFlags.Value ? symbol.name : `type ${symbol.name}`
  })
}

const files = { root: join(repoRoot, 'src/index.ts'), extend: join(repoRoot, 'src/extend.ts') }
const config = ts.readConfigFile(join(repoRoot, 'tsconfig.json'), ts.sys.readFile)
const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot)
const program = ts.createProgram(Object.values(files), { ...options, noEmit: true })
const rootExports = exportsOf(program, files.root)
const extendExports = exportsOf(program, files.extend)

const decide = (names: readonly string[]) =>
  `model-gateway (src/index.ts) exports ${names.join(', ')}, which test/public-api/root-exports.test.ts does not list. ` +
  'Decide root or extend: does a user who mounts the gateway and plugs in their own store need it? ' +
  'If so, add it to `root` in this test and to docs/public-api.md; if not, export it from ' +
  'src/extend.ts (model-gateway/extend) instead (docs/decisions/0031-public-api.md).'

describe('the public API (docs/public-api.md)', () => {
  it('exports from the root exactly the names decided for it', () => {
    const added = rootExports.filter((name) => !root.includes(name))
    const gone = root.filter((name) => !rootExports.includes(name))
    expect(added, decide(added)).toEqual([])
    expect(gone, `listed for the root but no longer exported: ${gone.join(', ')}`).toEqual([])
    expect(new Set(root).size).toBe(root.length)
  })

  it('exports a name from one entry only, root or extend', () => {
    const names = (list: readonly string[]) => list.map((name) => name.replace(/^type /, ''))
    const both = names(extendExports).filter((name) => names(rootExports).includes(name))
    expect(both, 'exported from both model-gateway and model-gateway/extend').toEqual([])
  })

  it('has the values the list says at run time', async () => {
    const values = Object.keys(await import('../../src/index')).sort()
    expect(values).toEqual(root.filter((name) => !name.startsWith('type ')).sort())
  })
})
