import { parseGatewayConfig } from './config/parse-config'
import type { GatewayConfig } from './config/schema'
import type { UpstreamHealth } from './failover/upstream-selector'
import { assembleGateway } from './gateway-assemble'
import { gatewayCoreKey, type GatewayCore } from './gateway-core'
import { createGatewayHandle } from './gateway-handle'
import type { GatewayCloseOptions } from './gateway-lifecycle'
import { fromWebRequest } from './http/gateway-request'
import { toResponse } from './http/gateway-answer'
import type { GatewayContext } from './http/request-context'

export type { GatewayContext } from './http/request-context'

/**
 * A WHATWG handler, mountable on any runtime. The second argument is whatever the runtime passes
 * (Workers' `ctx`, Deno's `ServeHandlerInfo`, Bun's server); only a `waitUntil` method on it is
 * used.
 */
export type GatewayFetch = (
  request: Request,
  context?: GatewayContext | object,
) => Promise<Response>

/**
 * The gateway: a `GatewayFetch`, plus `close()` for a graceful stop. `close()` refuses new
 * requests (503), waits for those in flight and for their usage to settle, then closes the parts
 * that hold resources (a usage ledger writes its queue; a key store stops listening). Stop the
 * server first, then await it; `serveGateway`'s `close()` does both.
 *
 * `health()` reports each upstream's state as the upstream selector keeps it: circuit (`closed`,
 * `open`, `half-open`), when an open one lets a probe through and why it opened, calls in flight,
 * and a key pool's keys, masked, with why one is out of rotation. It is not served over HTTP.
 */
export type GatewayHandler = GatewayFetch & {
  close(options?: GatewayCloseOptions): Promise<void>
  health(): Promise<readonly UpstreamHealth[]>
}

/**
 * Creates the gateway handler. The config is validated once, here: an invalid config throws a
 * `GatewayConfigError` listing every bad field by its path.
 *
 * @example
 * const gateway = createGateway({
 *   groups: [{ id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] }],
 *   keys: [{ key: 'sk-demo-0123456789abcdef', groups: ['demo'] }],
 * })
 * Bun.serve({ fetch: gateway })
 */
export function createGateway(config: GatewayConfig): GatewayHandler {
  const valid = parseGatewayConfig(config)
  const parts = assembleGateway(valid)
  const handle = createGatewayHandle(valid, parts)
  const gateway = async function gateway(
    request: Request,
    context?: GatewayContext | object,
  ): Promise<Response> {
    return toResponse(await handle(fromWebRequest(request), context))
  }
  const health = async () => await parts.selector.health()
  const core: GatewayCore = {
    handle,
    preferKeyHash: parts.preferKeyHash,
    inspect: () => ({
      runtime: parts.runtime,
      basePath: valid.basePath,
      configKeys: () => parts.configKeys,
      console: valid.console,
      metrics: valid.metrics,
      probes: valid.probes,
      health,
      mcp: parts.mcp,
    }),
  }
  return Object.assign(gateway, { close: parts.lifecycle.close, health, [gatewayCoreKey]: core })
}
