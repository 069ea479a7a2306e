import { ConsoleError } from '../server/answers'
import type { ConsoleRequest } from '../server/context'
import { createKeyCall, revokeKeyCall, updateKeyCall } from './keys-edit'
import { listKeysPage } from './keys-list'
import { healthCall } from './health'
import { mcpCall } from './mcp'
import { modelsCall } from './models'
import { usageCall } from './usage'
import { createTeamCall, teamsPage, updateTeamCall } from './teams'

const keyRoute = /^\/keys\/([^/]+)(\/revoke)?$/
const teamRoute = /^\/teams\/([^/]+)$/

/**
 * The console's JSON API below `<mount>/api`, for a signed-in user (sign-in and sign-out are
 * answered before): one request per page, each answer complete for it.
 */
export async function routeApi(
  call: ConsoleRequest,
  method: string,
  body: Record<string, unknown> | undefined,
): Promise<unknown> {
  const { route } = call
  if (route === '/keys') {
    if (method === 'GET') return listKeysPage(call)
    if (method === 'POST') return createKeyCall(call, body ?? {})
    throw notAllowed(method, 'GET, POST')
  }
  if (route === '/teams') {
    if (method === 'GET') return teamsPage(call)
    if (method === 'POST') return createTeamCall(call, body ?? {})
    throw notAllowed(method, 'GET, POST')
  }
  const teamMatch = teamRoute.exec(route)
  if (teamMatch !== null) {
    if (method === 'PATCH') return updateTeamCall(call, decodeId(teamMatch[1]!), body ?? {})
    throw notAllowed(method, 'PATCH')
  }
  const keyMatch = keyRoute.exec(route)
  if (keyMatch !== null) {
    const id = decodeId(keyMatch[1]!)
    if (call.user.role === 'key' && call.user.keyId !== id) {
      // Another key's id is answered as unknown: a key holder learns nothing of other keys.
      throw new ConsoleError(404, `No key with id "${id}".`)
    }
    if (keyMatch[2] !== undefined) {
      if (method === 'POST') return revokeKeyCall(call, id)
      throw notAllowed(method, 'POST')
    }
    if (method === 'PATCH') return updateKeyCall(call, id, body ?? {})
    throw notAllowed(method, 'PATCH')
  }
  const reads: Record<string, (call: ConsoleRequest) => Promise<unknown>> = {
    '/usage': usageCall,
    '/models': modelsCall,
    '/health': healthCall,
    '/mcp': mcpCall,
  }
  const read = Object.hasOwn(reads, route) ? reads[route] : undefined // lookup-safe: own key
  if (read !== undefined) {
    if (method === 'GET') return read(call)
    throw notAllowed(method, 'GET')
  }
  throw new ConsoleError(404, `No console API at ${route}.`)
}

function notAllowed(method: string, allow: string): ConsoleError {
  return new ConsoleError(405, `${method} is not allowed here (${allow}).`, { allow })
}

function decodeId(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new ConsoleError(400, 'The id in the path is malformed.')
  }
}
