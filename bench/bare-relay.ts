import { Agent, createServer, request as httpRequest, type Server } from 'node:http'

/**
 * The floor of any relay: a `node:http` server that pipes each request to the upstream with
 * `http.request` over a keep-alive agent and pipes the answer back, headers and all. No parsing,
 * no auth, no Web streams: whatever the gateway costs above this is its own.
 */
export function createBareRelay(upstream: URL): Server {
  const agent = new Agent({ keepAlive: true, scheduling: 'lifo' })
  const server = createServer((request, response) => {
    const outgoing = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
        agent,
      },
      (incoming) => {
        response.writeHead(incoming.statusCode ?? 502, incoming.headers)
        incoming.pipe(response)
      },
    )
    outgoing.on('error', () => {
      if (!response.headersSent) response.writeHead(502)
      response.end()
    })
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy()
    })
    request.pipe(outgoing)
  })
  server.keepAliveTimeout = 65_000
  return server
}
