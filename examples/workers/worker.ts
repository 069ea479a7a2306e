import {
  createGateway,
  type GatewayConfig,
  type GatewayContext,
  type GatewayHandler,
} from 'model-gateway'
import config from '../gateway.config.json'

let gateway: GatewayHandler | undefined

export default {
  // `ctx` is the Workers ExecutionContext; the gateway only needs its `waitUntil`.
  fetch(request: Request, env: Record<string, string>, ctx: GatewayContext): Promise<Response> {
    // Workers hand out `env` per request, not at import time, so the gateway is created on the
    // first one and reused: `${NAME}` in the config expands from the bindings, and usage metering
    // spans requests in this isolate.
    gateway ??= createGateway({ ...config, env } as GatewayConfig)
    return gateway(request, ctx)
  },
}
