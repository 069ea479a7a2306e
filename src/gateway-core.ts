import type { KeyHasher } from './auth/hash-key'
import type { ConfigKey } from './config/build-parts'
import type { ConsoleConfig, ValidGatewayConfig } from './config/schema'
import type { UpstreamHealth } from './failover/upstream-selector'
import type { GatewayRuntime } from './gateway-runtime'
import type { GatewayAnswer } from './http/gateway-answer'
import type { GatewayRequest } from './http/gateway-request'
import type { McpGateway } from './mcp/mcp-gateway'

/**
 * Where a gateway built by `createGateway` keeps what runtime adapters may use beyond its WHATWG
 * handler. A registered symbol, so that it survives duplicate copies of the package; it is no
 * public API.
 */
export const gatewayCoreKey: unique symbol = Symbol.for('model-gateway.core') as never

/** What a runtime adapter (the Node one) may ask of a gateway built by `createGateway`. */
export type GatewayCore = {
  /** The gateway over the runtime-neutral shapes: what the WHATWG handler wraps. */
  handle(request: GatewayRequest, context?: object): Promise<GatewayAnswer>
  /**
   * Hashes presented keys with `hash` from now on, unless the config named its own `hashKey`:
   * the Node adapter passes `node:crypto`'s synchronous SHA-256, which skips Web Crypto's promise
   * and thread-pool hop on every request.
   */
  preferKeyHash(hash: KeyHasher): void
  /** What the console (`model-gateway/console`) reads of the gateway: never secrets. */
  inspect(): GatewayInspection
}

/**
 * A gateway's parts, as the console reads them: its runtime (groups, key store, meter, ledger),
 * where it is mounted, the config's keys (hashed and masked: no plaintext key is kept), the
 * config's `console` section (validated, `${NAME}` expanded) and the upstreams' health.
 */
export type GatewayInspection = {
  runtime: GatewayRuntime
  basePath: string | undefined
  configKeys(): Promise<readonly ConfigKey[]>
  console: ConsoleConfig | undefined
  /** The config's `metrics` and `probes` sections, validated: the routes the CLI serves. */
  metrics: ValidGatewayConfig['metrics']
  probes: ValidGatewayConfig['probes']
  health(): Promise<readonly UpstreamHealth[]>
  /** The MCP gateway, when the config has an `mcp` section (the console lists its servers). */
  mcp: McpGateway | undefined
}

/** The core of a gateway built by `createGateway`, or `undefined` for any other handler. */
export function coreOf(handler: object): GatewayCore | undefined {
  const core = (handler as { [gatewayCoreKey]?: GatewayCore })[gatewayCoreKey]
  return typeof core === 'object' && core !== null ? core : undefined
}
