import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import type { PageProps } from '../page-props'
import { Loading } from '../components'
import { when } from '../format'

type McpServers = {
  configured: boolean
  mcpUrl: string | null
  servers: Array<{
    id: string
    reachable: boolean
    checkedAt: number
    lastErrorAt: number | null
    lastError: string | null
    toolCount: number | null
    tools: Array<{ name: string; description: string | null }>
  }>
}

/**
 * The MCP gateway's servers the signed-in user may use (a key holder: their key's), each with its
 * health and the tools it offers them under the names clients call.
 */
export function McpPage(props: PageProps) {
  const [data, setData] = useState<McpServers | null>(null)
  const [error, setError] = useState<string | null>(null)
  const load = () =>
    api<McpServers>('/mcp').then(setData, (failure: Error) => setError(failure.message))
  useEffect(() => {
    void load()
  }, [])
  if (data === null) return html`<${Loading} error=${error} />`
  return html`<p class="section-head">
      <span class="muted"
        >Endpoint <code>${data.mcpUrl}</code>; health is re-checked every 30 s.</span
      >
      <button type="button" onClick=${load}>Refresh</button>
    </p>
    ${
      data.servers.length === 0
        ? html`<p class="card">
            ${props.session.user.role === 'key' ? 'This key may use no MCP server.' : 'No MCP server is configured.'}
          </p>`
        : null
    }
    <ul class="health mcp-servers">
      ${data.servers.map((server) => {
        const state = server.reachable ? 'healthy' : 'failing'
        return html`<li class=${`card ${state}`} data-server=${server.id}>
          <h2>
            <span class=${`status ${state}`}
              >${server.reachable ? 'reachable' : 'unreachable'}</span
            >
            ${server.id}
            <small class="muted">
              ${server.toolCount === null ? '' : `${server.toolCount} tools, `}checked
              ${when(server.checkedAt)}
            </small>
          </h2>
          ${
            server.lastErrorAt === null
              ? null
              : html`<p class="muted">
                  Last error ${when(server.lastErrorAt)}: ${server.lastError}
                </p>`
          }
          <ul class="pool">
            ${server.tools.map(
              (tool) =>
                html`<li>
                  <code>${tool.name}</code
                  >${tool.description === null ? '' : `: ${tool.description}`}
                </li>`,
            )}
          </ul>
        </li>`
      })}
    </ul>`
}
