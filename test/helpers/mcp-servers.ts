import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import * as z from 'zod'

/** A running upstream MCP server built with the official SDK's server, on a loopback port. */
export type FixtureServer = {
  url: string
  /** Authorization headers the server saw, in order. */
  authorizations: string[]
  /** How many tool calls were cancelled (their signal aborted). */
  cancelled: () => number
  /** How many `DELETE`s (ends of sessions) the server got. */
  deleted: () => number
  close(): Promise<void>
  /** Closes every open socket at once: the server "dies" mid-call. */
  kill(): void
}

/**
 * An MCP server (SDK `McpServer`, Streamable HTTP with sessions) with tools `echo`, `add`,
 * `slow` (progress notifications, then waits for cancellation or 1 s), `die` (never answers),
 * a prompt `greet` and a resource `<name>://readme`. With `token`, requests must carry it;
 * `register` adds more (the conformance suite's, `mcp-conformance-tools.ts`).
 */
export async function startFixtureServer(
  name: string,
  token?: string,
  register?: (server: McpServer) => void,
): Promise<FixtureServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>()
  const authorizations: string[] = []
  let cancelled = 0
  let deleted = 0
  function build() {
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
    server.registerTool('slow', { description: 'Slow, with progress' }, async (extra) => {
      const token = extra._meta?.progressToken
      for (let step = 1; step <= 3; step++) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, total: 3 },
          })
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000)
        extra.signal.addEventListener('abort', () => {
          cancelled++
          clearTimeout(timer)
          resolve()
        })
      })
      return { content: [{ type: 'text', text: 'slow done' }] }
    })
    server.registerTool('die', { description: 'Never answers' }, async () => {
      await new Promise(() => undefined)
      return { content: [] }
    })
    server.registerPrompt(
      'greet',
      { description: 'Greets', argsSchema: { who: z.string() } },
      ({ who }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who} from ${name}` } }],
      }),
    )
    server.registerResource(
      'readme',
      `${name}://readme`,
      { mimeType: 'text/plain' },
      async (uri) => ({
        contents: [{ uri: uri.href, text: `readme of ${name}` }],
      }),
    )
    register?.(server)
    return server
  }
  const http: Server = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization ?? '')
    if (req.method === 'DELETE') deleted++
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end(`bad token ${req.headers.authorization ?? ''}`)
      return
    }
    const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined
    const sessionId = req.headers['mcp-session-id']
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined
    if (transport === undefined) {
      if (body?.method !== 'initialize') {
        res.writeHead(sessionId === undefined ? 400 : 404).end('no session')
        return
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, transport!),
      })
      await build().connect(transport)
    }
    await transport.handleRequest(req, res, body)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const port = (http.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    cancelled: () => cancelled,
    deleted: () => deleted,
    kill: () => http.closeAllConnections(),
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
