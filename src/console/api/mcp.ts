import { exposedName } from '../../mcp/names'
import { grantsOf, mcpAllowed, type McpGrants } from '../../mcp/permissions'
import type { ConsoleRequest } from '../server/context'
import { mcpAddress } from '../server/context'
import { findKey } from '../server/key-directory'
import { probeServers } from './mcp-probe'

/**
 * `GET <mount>/api/mcp`: the MCP gateway's upstream servers and their tools as the signed-in user
 * may use them, with each server's health. A key holder sees only the servers and tools their key
 * (and its team) may use, decided by `mcpAllowed` — the function that filters `tools/list` and
 * enforces `tools/call`; admins and viewers see every server and tool. Tool names are the ones
 * clients call (`{server}__{tool}`). Health is probed at most every 30 s (see `probeServers`).
 */
export async function mcpCall(call: ConsoleRequest) {
  const { deps, user, url } = call
  const gateway = deps.gateway.mcp
  if (gateway === undefined) return { configured: false, mcpUrl: null, servers: [] }
  const grants = user.role === 'key' ? await keyGrants(call, user.keyId) : undefined
  const allowed = (server: string, tool?: string) =>
    user.role !== 'key' ||
    (tool === undefined
      ? mcpAllowed(grants, server, 'server')
      : mcpAllowed(grants, server, 'tool', tool))
  const visible = [...gateway.endpoints.keys()].filter((id) => allowed(id))
  // Nothing is probed for a key that may use no server: its page costs the servers nothing.
  const probes = visible.length === 0 ? [] : await probeServers(gateway)
  const servers = probes
    .filter((probe) => visible.includes(probe.id))
    .map((probe) => {
      const tools = probe.tools
        .filter((tool) => allowed(probe.id, tool.name))
        .map((tool) => ({
          name: exposedName(probe.id, tool.name, false),
          description: tool.description,
        }))
      return {
        id: probe.id,
        reachable: probe.reachable,
        checkedAt: probe.checkedAt,
        lastErrorAt: probe.lastErrorAt,
        lastError: probe.lastError,
        toolCount: probe.reachable ? tools.length : null,
        tools,
      }
    })
  return { configured: true, mcpUrl: mcpAddress(deps, url) ?? null, servers }
}

/** The grants binding a key: its own and its team's (`undefined`, none: it sees no server). */
async function keyGrants(call: ConsoleRequest, keyId: string): Promise<McpGrants | undefined> {
  const record = (await findKey(call.deps, keyId))?.record
  if (record === undefined) return undefined
  const team =
    record.team === undefined
      ? undefined
      : await call.deps.gateway.runtime.teams?.lookup(record.team)
  return grantsOf(record.mcp, team?.mcp)
}
