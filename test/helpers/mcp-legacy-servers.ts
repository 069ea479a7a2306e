import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import * as z from 'zod'

/** A running HTTP+SSE (2024-11-05) MCP server built with the official SDK, on a loopback port. */
export type SseFixtureServer = {
  /** Its SSE endpoint (`GET`); the `endpoint` event names `/messages?sessionId=…`. */
  url: string
  /** How many SSE streams were opened. */
  streams: () => number
  /** Authorization headers the server saw, in order. */
  authorizations: string[]
  close(): Promise<void>
}

/**
 * An SDK `McpServer` behind `SSEServerTransport` with tools `echo`, `add` and `drop` (which ends
 * the session's SSE stream instead of answering). With `token`, requests must carry it.
 */
export async function startSseFixtureServer(
  name: string,
  token?: string,
): Promise<SseFixtureServer> {
  const transports = new Map<string, SSEServerTransport>()
  const authorizations: string[] = []
  let streams = 0
  function build(transport: () => SSEServerTransport) {
    const server = new McpServer({ name, version: '1.0.0' })
    server.registerTool(
      'echo',
      { description: 'Echoes text', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text: `${name}:${text}` }] }),
    )
    server.registerTool(
      'add',
      { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    )
    server.registerTool('drop', { description: 'Drops its SSE stream' }, async () => {
      await transport().close()
      return { content: [] }
    })
    return server
  }
  const http: Server = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization ?? '')
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end('bad token')
      return
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method === 'GET' && url.pathname === '/sse') {
      streams++
      const transport = new SSEServerTransport('/messages', res)
      transports.set(transport.sessionId, transport)
      res.on('close', () => transports.delete(transport.sessionId))
      await build(() => transport).connect(transport)
      return
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = transports.get(url.searchParams.get('sessionId') ?? '')
      if (transport === undefined) {
        res.writeHead(404).end('no session')
        return
      }
      await transport.handlePostMessage(req, res, JSON.parse(await readBody(req)))
      return
    }
    res.writeHead(405).end()
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const port = (http.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/sse`,
    streams: () => streams,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += chunk
  return text
}
