import { isJsonObject, stringOf } from '../internal/json'
import type { Forwarded } from './forward'
import { rpcCodes } from './json-rpc'
import type { McpGateway } from './mcp-gateway'
import { exposedUri, splitName, splitUri } from './names'
import { mcpAllowed, type McpGrants } from './permissions'
import type { McpSession } from './session-store'

/**
 * The server and upstream params of a request the gateway forwards. A tool, prompt or resource
 * that does not exist and one the key may not use get the same answer, so guessing a name tells
 * nothing; `tools/call` asks the same `mcpAllowed` that filtered `tools/list`.
 */
export function route(
  gateway: McpGateway,
  session: McpSession,
  grants: McpGrants | undefined,
  method: string,
  params: Record<string, unknown>,
): Omit<Forwarded, 'id' | 'method'> | { error: { code: number; message: string } } {
  const scoped = session.server
  switch (method) {
    case 'tools/call':
    case 'prompts/get': {
      const kind = method === 'tools/call' ? 'tool' : 'prompt'
      const name = params['name']
      const split = typeof name === 'string' ? splitName(name, scoped) : undefined
      const endpoint = split === undefined ? undefined : gateway.endpoints.get(split.server)
      if (
        split === undefined ||
        endpoint === undefined ||
        !mcpAllowed(grants, split.server, kind, split.name)
      ) {
        return {
          error: {
            code: rpcCodes.invalidParams,
            message: `Unknown ${kind}: ${stringOf(name).slice(0, 200)}`,
          },
        }
      }
      return {
        endpoint,
        params: { ...params, name: split.name },
        ...(kind === 'tool'
          ? { tool: { server: split.server, tool: split.name, callId: '' } }
          : {}),
        mapResult: (result) => (scoped === undefined ? rewriteLinks(result, split.server) : result),
      }
    }
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe': {
      const uri = params['uri']
      const split = typeof uri === 'string' ? splitUri(uri, scoped) : undefined
      const endpoint = split === undefined ? undefined : gateway.endpoints.get(split.server)
      if (
        split === undefined ||
        endpoint === undefined ||
        !mcpAllowed(grants, split.server, 'resource')
      ) {
        return {
          error: { code: -32002, message: `Resource not found: ${stringOf(uri).slice(0, 200)}` },
        }
      }
      return {
        endpoint,
        params: { ...params, uri: split.uri },
        mapResult: (result) => (scoped === undefined ? rewriteLinks(result, split.server) : result),
      }
    }
    case 'completion/complete': {
      const ref = params['ref']
      if (isJsonObject(ref) && ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string') {
        const split = splitName(ref['name'], scoped)
        const endpoint = split === undefined ? undefined : gateway.endpoints.get(split.server)
        if (
          split !== undefined &&
          endpoint !== undefined &&
          mcpAllowed(grants, split.server, 'prompt')
        ) {
          return { endpoint, params: { ...params, ref: { ...ref, name: split.name } } }
        }
      }
      if (isJsonObject(ref) && ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string') {
        const split = splitUri(ref['uri'], scoped)
        const endpoint = split === undefined ? undefined : gateway.endpoints.get(split.server)
        if (
          split !== undefined &&
          endpoint !== undefined &&
          mcpAllowed(grants, split.server, 'resource')
        ) {
          return { endpoint, params: { ...params, ref: { ...ref, uri: split.uri } } }
        }
      }
      return { error: { code: rpcCodes.invalidParams, message: 'Unknown completion reference.' } }
    }
    default:
      return {
        error: {
          code: rpcCodes.methodNotFound,
          message: `Method not found: ${method.slice(0, 200)}`,
        },
      }
  }
}

/** Rewrites the `uri` of a result's contents and `resource_link` blocks into the gateway's URIs. */
function rewriteLinks(result: Record<string, unknown>, server: string): Record<string, unknown> {
  const rewrite = (list: unknown) =>
    Array.isArray(list) ? list.map((block: unknown) => rewriteBlock(block, server)) : list
  const rewritten = { ...result }
  if (Array.isArray(result['content'])) rewritten['content'] = rewrite(result['content'])
  if (Array.isArray(result['contents'])) rewritten['contents'] = rewrite(result['contents'])
  return rewritten
}

/** One content block with its URI (or its embedded resource's) in the gateway's form. */
function rewriteBlock(block: unknown, server: string): unknown {
  if (!isJsonObject(block)) return block
  const uri = block['uri']
  if (typeof uri === 'string') return { ...block, uri: exposedUri(server, uri, false) }
  const resource = block['resource']
  if (isJsonObject(resource) && typeof resource['uri'] === 'string') {
    return { ...block, resource: { ...resource, uri: exposedUri(server, resource['uri'], false) } }
  }
  return block
}
