/**
 * The call guide's MCP snippets: how to add the gateway's MCP endpoint to each client.
 *
 * @module
 */

import { js, sh, toml } from './quote'
import type { Snippet } from './snippet'

/** The name the snippets give the gateway's MCP endpoint in each client. */
export const mcpServerName = 'model-gateway'

/**
 * How to add the gateway's MCP endpoint to each client, with the key as a bearer token (the MCP
 * routes take the same three header forms as the model routes; `Authorization` is the one every
 * client can send). Keys as each client documents them for Streamable HTTP servers.
 */
export function mcpSnippets(mcpUrl: string, apiKey: string): Snippet[] {
  const bearer = `Bearer ${apiKey}`
  return [
    {
      id: 'mcp-claude-code',
      section: 'MCP',
      title: 'Claude Code',
      language: 'sh',
      code: `claude mcp add --transport http ${mcpServerName} ${sh(mcpUrl)} --header ${sh(`Authorization: ${bearer}`)}`,
      note: 'Add --scope user to have it in every project; /mcp inside Claude Code lists its tools.',
    },
    {
      id: 'mcp-codex',
      section: 'MCP',
      title: 'Codex (~/.codex/config.toml)',
      language: 'toml',
      code: `[mcp_servers.${mcpServerName}]
url = ${toml(mcpUrl)}
bearer_token_env_var = "MODEL_GATEWAY_API_KEY"`,
      note: 'Codex sends the variable bearer_token_env_var names as the bearer token: export MODEL_GATEWAY_API_KEY as in "Codex: the key".',
    },
    {
      id: 'mcp-gemini-cli',
      section: 'MCP',
      title: 'Gemini CLI (~/.gemini/settings.json)',
      language: 'json',
      code: JSON.stringify(
        {
          mcpServers: { [mcpServerName]: { httpUrl: mcpUrl, headers: { Authorization: bearer } } },
        },
        null,
        2,
      ),
      note: 'httpUrl is the Streamable HTTP transport (url would be the older SSE one).',
    },
    {
      id: 'mcp-ai-sdk',
      section: 'MCP',
      title: 'AI SDK MCP client (TypeScript)',
      language: 'ts',
      code: `import { createMCPClient } from '@ai-sdk/mcp'

const mcp = await createMCPClient({
  transport: { type: 'http', url: ${js(mcpUrl)}, headers: { Authorization: ${js(bearer)} } },
})
const tools = await mcp.tools() // pass to generateText({ tools, ... })
console.log(Object.keys(tools))
await mcp.close()`,
      note: 'Tool names are {server}__{tool}; the list holds only the tools this key may call.',
    },
  ]
}
