import { createGateway, type GatewayConfig } from 'model-gateway'
import config from '../gateway.config.json'

const gateway = createGateway(config as GatewayConfig)
const server = Bun.serve({
  fetch: gateway,
  port: Number(process.env.PORT ?? 8787),
  hostname: '127.0.0.1',
})

console.log(`model-gateway listening on ${server.url.origin}`)
