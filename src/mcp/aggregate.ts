import { isJsonObject } from '../internal/json'
import type { McpGateway } from './mcp-gateway'
import { exposedName, exposedUri } from './names'
import { mcpAllowed, type McpGrants } from './permissions'
import type { McpSession } from './session-store'

/** The list methods the gateway aggregates, with the array each answers and how items are named. */
const lists = {
  'tools/list': { field: 'tools', kind: 'tool', by: 'name' },
  'prompts/list': { field: 'prompts', kind: 'prompt', by: 'name' },
  'resources/list': { field: 'resources', kind: 'resource', by: 'uri' },
  'resources/templates/list': { field: 'resourceTemplates', kind: 'resource', by: 'uriTemplate' },
} as const

/** A list method the gateway aggregates. */
export type ListMethod = keyof typeof lists

/** Whether a method is one of the aggregated lists. */
export function isListMethod(method: string): method is ListMethod {
  return Object.hasOwn(lists, method)
}

/** Most pages read from one server for one list: a server that never ends its cursor stops here. */
const maxPages = 20

/**
 * One list over every server the key may use (or the one of a `/mcp/{server}` session): each
 * server's pages read in full, names prefixed (`{server}__{name}`, URIs rewritten reversibly), and
 * only the items `mcpAllowed` allows — the same function `tools/call` asks. A server that fails is
 * left out of the list rather than failing it. One page: the list is filtered per key.
 */
export async function aggregateList(
  gateway: McpGateway,
  session: McpSession,
  grants: McpGrants | undefined,
  method: ListMethod,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const { field, kind, by } = lists[method]
  const scoped = session.server !== undefined
  const servers = [...gateway.endpoints.values()].filter(
    (endpoint) =>
      (session.server === undefined || endpoint.id === session.server) &&
      mcpAllowed(grants, endpoint.id, 'server'),
  )
  const perServer = await Promise.all(
    servers.map(async (endpoint) => {
      const items: Record<string, unknown>[] = []
      try {
        let cursor: string | undefined
        for (let page = 0; page < maxPages; page++) {
          const result = await gateway.upstreams.call(
            session,
            endpoint,
            method,
            cursor === undefined ? undefined : { cursor },
            signal,
          )
          const found = result[field]
          if (Array.isArray(found)) items.push(...found.filter(isJsonObject))
          cursor = typeof result['nextCursor'] === 'string' ? result['nextCursor'] : undefined
          if (cursor === undefined) break
        }
      } catch {
        // A server that is down, or does not serve this list, is left out of it.
        return []
      }
      return items.flatMap((item) => {
        const name = item[by]
        if (typeof name !== 'string') return []
        const allowedName = kind === 'tool' ? name : ''
        if (!mcpAllowed(grants, endpoint.id, kind, allowedName)) return []
        const exposed =
          by === 'name'
            ? exposedName(endpoint.id, name, scoped)
            : exposedUri(endpoint.id, name, scoped)
        return [{ ...item, [by]: exposed }]
      })
    }),
  )
  return { [field]: perServer.flat() }
}
