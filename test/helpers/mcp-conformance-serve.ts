import { createGateway } from '../../src/index'
import { serveGateway } from '../../src/node/index'
import { registerConformanceTools } from './mcp-conformance-tools'
import { startFixtureServer } from './mcp-servers'

/**
 * The gateway in front of an SDK server with the conformance suite's tools, on a loopback port;
 * prints `{"url": …}` (the `/mcp/conformance` endpoint with its key) for
 * `scripts/mcp-conformance.mjs`, then serves until killed.
 */
const upstream = await startFixtureServer('conformance', undefined, registerConformanceTools)
const key = 'sk-conformance-0123456789abcdefABCDEF'
const gateway = createGateway({
  mcp: { servers: [{ id: 'conformance', url: upstream.url }] },
  groups: [{ id: 'demo', protocol: 'openai', models: ['demo'], upstreams: [{ provider: 'mock' }] }],
  keys: [{ key, id: 'conformance', mcp: { servers: ['*'] } }],
})
const served = await serveGateway(gateway, {
  port: Number(process.env.PORT ?? 0),
  host: '127.0.0.1',
})
console.log(JSON.stringify({ url: `${served.url}/mcp/conformance?key=${key}` }))
