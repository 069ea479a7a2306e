import { nameSeparator } from './permissions'

/** `{server}__{name}` on the aggregated endpoint; the name as it is on `/mcp/{server}`. */
export function exposedName(server: string, name: string, scoped: boolean): string {
  return scoped ? name : server + nameSeparator + name
}

/** The server and upstream name of an exposed name, or `undefined` when it names no server. */
export function splitName(
  name: string,
  scopedServer: string | undefined,
): { server: string; name: string } | undefined {
  if (scopedServer !== undefined) return { server: scopedServer, name }
  const at = name.indexOf(nameSeparator)
  if (at <= 0) return undefined
  return { server: name.slice(0, at), name: name.slice(at + nameSeparator.length) }
}

const uriScheme = 'mcp-gateway://'

/**
 * A resource URI as the aggregated endpoint shows it: `mcp-gateway://{server}/{uri}`, reversible
 * (`splitUri`), so `resources/read` knows the server. `/mcp/{server}` shows URIs unchanged.
 */
export function exposedUri(server: string, uri: string, scoped: boolean): string {
  return scoped ? uri : `${uriScheme}${server}/${uri}`
}

/** The server and upstream URI of an exposed URI. */
export function splitUri(
  uri: string,
  scopedServer: string | undefined,
): { server: string; uri: string } | undefined {
  if (scopedServer !== undefined) return { server: scopedServer, uri }
  if (!uri.startsWith(uriScheme)) return undefined
  const rest = uri.slice(uriScheme.length)
  const slash = rest.indexOf('/')
  if (slash <= 0) return undefined
  return { server: rest.slice(0, slash), uri: rest.slice(slash + 1) }
}
