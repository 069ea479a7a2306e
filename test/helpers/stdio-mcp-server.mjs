// An MCP server on stdio (the official SDK's StdioServerTransport) for the gateway's tests:
// tools `echo`, `pid` (its process id), `env` (one variable of its environment), `exit` (the
// process exits mid-call) and `big` (one stdout line larger than the gateway's bound).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import * as z from 'zod'

const server = new McpServer({ name: 'stdio-fixture', version: '1.0.0' })
server.registerTool(
  'echo',
  { description: 'Echoes text', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text: `stdio:${text}` }] }),
)
server.registerTool('pid', { description: 'Its process id' }, async () => ({
  content: [{ type: 'text', text: String(process.pid) }],
}))
server.registerTool(
  'env',
  { description: 'One variable of its environment', inputSchema: { name: z.string() } },
  async ({ name }) => ({ content: [{ type: 'text', text: process.env[name] ?? '(unset)' }] }),
)
server.registerTool('exit', { description: 'Exits mid-call' }, async () => process.exit(3))
server.registerTool('big', { description: 'Answers 64 KiB' }, async () => ({
  content: [{ type: 'text', text: 'x'.repeat(65536) }],
}))
await server.connect(new StdioServerTransport())
