import {
  createGateway,
  type GatewayConfig,
  type GatewayContext,
  type GatewayFetch,
} from 'model-gateway'
import { createConsole, withConsole } from 'model-gateway/console'
import config from '../gateway.config.json'

let handler: GatewayFetch | undefined

export default {
  // `ctx` is the Workers ExecutionContext; the gateway only needs its `waitUntil`.
  fetch(request: Request, env: Record<string, string>, ctx: GatewayContext): Promise<Response> {
    // Workers hand out `env` per request, not at import time, so the gateway is created on the
    // first one and reused: `${NAME}` in the config expands from the bindings (the console's
    // CONSOLE_ADMIN_TOKEN among them), and usage metering spans requests in this isolate.
    if (handler === undefined) {
      const gateway = createGateway({ ...config, env } as GatewayConfig)
      handler = withConsole(gateway, createConsole(gateway))
    }
    return handler(request, ctx)
  },
}
