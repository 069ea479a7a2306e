import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createGateway, type GatewayConfig } from 'model-gateway'
import { createConsole } from 'model-gateway/console'
import { toNodeHandler } from 'model-gateway/node'
import config from '../gateway.config.json' with { type: 'json' }

// JSON imports widen literals such as `"protocol": "openai"` to `string`, hence the cast.
const gateway = createGateway(config as GatewayConfig)
// The config's "console" section: the console under /console, the API everywhere else.
const server = createServer(toNodeHandler(gateway, { console: createConsole(gateway) }))

server.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(`model-gateway listening on http://127.0.0.1:${port}`)
})
