import { KeyAdminError } from '../../postgres/key-input'
import type { CreateKeyInput, UpdateKeyInput } from '../../postgres/key-input'
import { ConsoleError } from '../server/answers'
import type { ConsoleRequest } from '../server/context'
import { findKey, fromStored } from '../server/key-directory'
import type { KeyAdmin } from '../key-admin'

/** The fields a key may be created or edited with from the console. */
const editable = [
  'name',
  'groups',
  'quotaTokens',
  'limits',
  'budget',
  'priceMultiplier',
  'expiresAt',
  'team',
] as const

/**
 * `POST <mount>/api/keys` (admins): creates a key. The answer carries its secret, this once; the
 * store keeps only its SHA-256.
 */
export async function createKeyCall(call: ConsoleRequest, body: Record<string, unknown>) {
  const admin = adminOf(call)
  const input = pick(body) as CreateKeyInput
  await checkGroups(call, input.groups)
  const check = await checkTeam(call, input.team)
  const { key, stored } = await edit(() => admin.create(input, check))
  return { key, row: fromStored(stored, admin.kind, call.deps.now()).key }
}

/**
 * `PATCH <mount>/api/keys/<id>` (admins): changes limits, money budgets (replaced whole), price
 * multiplier, groups, expiry, name; `null` clears.
 */
export async function updateKeyCall(
  call: ConsoleRequest,
  id: string,
  body: Record<string, unknown>,
) {
  const admin = adminOf(call)
  await editableKey(call, id)
  const changes = pick(body) as UpdateKeyInput
  if (Object.keys(changes).length === 0) throw new ConsoleError(400, 'Nothing to change.')
  await checkGroups(call, changes.groups ?? undefined)
  const check = await checkTeam(call, changes.team ?? undefined)
  const updated = await edit(() => admin.update(id, changes, check))
  if (updated === undefined) throw new ConsoleError(404, `No key with id "${id}".`)
  return { row: fromStored(updated, admin.kind, call.deps.now()).key }
}

/** `POST <mount>/api/keys/<id>/revoke` (admins): revokes a key for good. */
export async function revokeKeyCall(call: ConsoleRequest, id: string) {
  const admin = adminOf(call)
  await editableKey(call, id)
  const revoked = await admin.revoke(id)
  if (revoked === undefined) throw new ConsoleError(404, `No key with id "${id}".`)
  return { row: fromStored(revoked, admin.kind, call.deps.now()).key }
}

function adminOf(call: ConsoleRequest): KeyAdmin {
  if (call.user.role !== 'admin') throw new ConsoleError(403, 'Only admins change keys.')
  const admin = call.deps.keys
  if (admin === undefined) {
    throw new ConsoleError(
      409,
      'Keys are read-only here: this console has no key store to write to (configure state.postgres).',
    )
  }
  return admin
}

async function editableKey(call: ConsoleRequest, id: string): Promise<void> {
  const found = await findKey(call.deps, id)
  if (found === undefined) throw new ConsoleError(404, `No key with id "${id}".`)
  if (found.key.source === 'config') {
    throw new ConsoleError(
      409,
      `Key "${id}" is defined in the config file: change it there (keys from the config are read-only here).`,
    )
  }
}

function pick(body: Record<string, unknown>): Record<string, unknown> {
  const unknown = Object.keys(body).filter(
    (name) => !(editable as readonly string[]).includes(name),
  )
  if (unknown.length > 0) {
    throw new ConsoleError(400, `Unknown field ${unknown.map((name) => `"${name}"`).join(', ')}.`)
  }
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined))
}

async function checkGroups(call: ConsoleRequest, groups: unknown): Promise<void> {
  if (!Array.isArray(groups)) return
  const known = new Set((await call.deps.gateway.runtime.registry.list()).map((group) => group.id))
  const unknown = groups.filter(
    (group): group is string => typeof group === 'string' && !known.has(group),
  )
  if (unknown.length > 0) {
    throw new ConsoleError(400, `Unknown group ${unknown.map((group) => `"${group}"`).join(', ')}.`)
  }
}

/**
 * Refuses a team the gateway does not know, naming it; a team of the config (known to the
 * gateway, not to the team admin) is passed on as one the key store may accept.
 */
async function checkTeam(call: ConsoleRequest, team: unknown): Promise<{ otherTeams: string[] }> {
  if (typeof team !== 'string') return { otherTeams: [] }
  const { deps } = call
  if ((await deps.teams?.get(team)) !== undefined) return { otherTeams: [] }
  if ((await deps.gateway.runtime.teams?.lookup(team)) !== undefined) return { otherTeams: [team] }
  throw new ConsoleError(400, `No team "${team}": create it on the teams page first.`)
}

/** Runs a key admin call; its validation errors become 400s with their message. */
async function edit<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof KeyAdminError) throw new ConsoleError(400, error.message)
    throw error
  }
}
