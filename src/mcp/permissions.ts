import type { McpGrant } from '../auth/key-store'

/** The grants that bind a request: the key's and its team's, each of which must allow. */
export type McpGrants = readonly McpGrant[]

/** The separator of a server id and a tool or prompt name: `{server}__{tool}`. */
export const nameSeparator = '__'

/**
 * The grants of a key and of its team. Each grant that is present must allow a use on its own
 * (the key's and the team's are intersected, never unioned: a field of one never re-grants what
 * the other withholds). `undefined` when neither has one: such a key sees no server.
 */
export function grantsOf(
  key: McpGrant | undefined,
  team: McpGrant | undefined,
): McpGrants | undefined {
  const grants = [key, team].filter((grant): grant is McpGrant => grant !== undefined)
  return grants.length === 0 ? undefined : grants
}

/**
 * Whether the grants allow something of a server: a tool, a prompt or a resource. The one
 * function behind `tools/list` filtering and `tools/call` enforcement (and prompts, resources):
 * - `tool`: each grant's `servers` (when given) matches the server and its `tools` (when given)
 *   match `{server}__{name}`; a grant with neither allows nothing;
 * - `prompt` and `resource`: each grant's `servers` matches the server (tool patterns grant tools
 *   only);
 * - `server`: whether anything of the server could be allowed (it is then listed and reachable
 *   under `/mcp/{server}`).
 */
export function mcpAllowed(
  grants: McpGrants | undefined,
  server: string,
  kind: 'tool' | 'prompt' | 'resource' | 'server',
  name = '',
): boolean {
  if (grants === undefined) return false
  return grants.every((grant) => grantAllows(grant, server, kind, name))
}

function grantAllows(
  grant: McpGrant,
  server: string,
  kind: 'tool' | 'prompt' | 'resource' | 'server',
  name: string,
): boolean {
  const { servers, tools } = grant
  const serverMatches = servers !== undefined && servers.some((p) => globMatch(p, server))
  switch (kind) {
    case 'prompt':
    case 'resource':
      return serverMatches
    case 'tool':
      if (servers === undefined && tools === undefined) return false
      if (servers !== undefined && !serverMatches) return false
      return tools === undefined || tools.some((p) => globMatch(p, server + nameSeparator + name))
    case 'server':
      if (servers !== undefined) return serverMatches
      return tools !== undefined && tools.some((p) => globMatch(serverPart(p), server))
  }
}

/** The server part of a tool pattern (`github__*` → `github`; `*` → `*`). */
function serverPart(pattern: string): string {
  const at = pattern.indexOf(nameSeparator)
  return at < 0 ? pattern : pattern.slice(0, at)
}

const compiled = new Map<string, RegExp>()

/** `*` matches any run of characters (none included); everything else matches itself. */
export function globMatch(pattern: string, text: string): boolean {
  let regex = compiled.get(pattern)
  if (regex === undefined) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')
    regex = new RegExp(`^${body}$`, 's')
    if (compiled.size < 10_000) compiled.set(pattern, regex)
  }
  return regex.test(text)
}
