import { createGateway, type GatewayConfig } from 'model-gateway'
import { createConsole, withConsole } from 'model-gateway/console'
import config from '../gateway.config.json' with { type: 'json' }

const gateway = createGateway(config as GatewayConfig)

Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 8787),
    hostname: '127.0.0.1',
    onListen: ({ hostname, port }: Deno.NetAddr) =>
      console.log(`model-gateway listening on http://${hostname}:${port}`),
  },
  // The config's "console" section: the console under /console, the API everywhere else.
  withConsole(gateway, createConsole(gateway)),
)
