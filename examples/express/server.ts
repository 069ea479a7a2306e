import type { AddressInfo } from 'node:net'
import express from 'express'
import { createGateway, type GatewayConfig } from 'model-gateway'
import { createConsole } from 'model-gateway/console'
import { toNodeHandler } from 'model-gateway/node'
import config from '../gateway.config.json' with { type: 'json' }

const gateway = createGateway(config as GatewayConfig)
const app = express()
// Mounted before any body parser, so the gateway reads the client's bytes as sent; the console
// (the config's "console" section) under its own path. /v1beta is the Gemini clients' base.
app.use('/console', toNodeHandler(createConsole(gateway)))
app.use(['/v1', '/v1beta'], toNodeHandler(gateway))

const server = app.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  console.log(`model-gateway listening on http://127.0.0.1:${port}`)
})
