import { createGateway, type GatewayConfig } from 'model-gateway'
import { createConsole, withConsole } from 'model-gateway/console'
import config from '../gateway.config.json'

const gateway = createGateway(config as GatewayConfig)
// The config's "console" section: the console under /console, the API everywhere else.
const server = Bun.serve({
  fetch: withConsole(gateway, createConsole(gateway)),
  port: Number(process.env.PORT ?? 8787),
  hostname: '127.0.0.1',
})

console.log(`model-gateway listening on ${server.url.origin}`)
