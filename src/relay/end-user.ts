import { GatewayError } from '../errors'
import type { RequestScope } from '../gateway-runtime'
import type { RequestHeaders } from '../http/gateway-request'
import type { ProtocolName } from '../protocols/protocol-name'

/** The header an app names the end user of a request with. */
export const endUserHeader = 'x-gateway-user'

/**
 * The longest end-user id: 256 characters. Ids are opaque to the gateway, and agents send long
 * ones (Claude Code's `metadata.user_id` joins a 64-digit hash, an account and a session id, about
 * 160 characters); 256 bounds the meter's keys and the ledger's column all the same.
 */
export const maxEndUserLength = 256

// Visible ASCII only: no space, no control character, nothing a log line, a header or a store
// key would have to escape beyond what the meter already percent-encodes (`:`, `{`, `}`, `%`).
const endUserPattern = /^[\x21-\x7e]+$/

/**
 * Checks an end-user id named in `field` (`x-gateway-user`, `user`, `metadata.user_id`, the host
 * app's `endUser`). An empty string names no one (some clients send `user: ""`); anything else
 * that is not a string of 1 to 256 visible ASCII characters is the client's error: a 400 naming
 * the field, in the caller's protocol shape.
 */
export function checkEndUser(value: unknown, field: string): string | undefined {
  return checkEndUserField(value, field)
}

function checkEndUserField(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value !== 'string') {
    throw new GatewayError('invalid_request', `\`${field}\` must be a string naming the end user.`)
  }
  if (value.length > maxEndUserLength || !endUserPattern.test(value)) {
    throw new GatewayError(
      'invalid_request',
      `\`${field}\` must be 1 to ${maxEndUserLength} visible ASCII characters (no spaces): it names the end user of the request.`,
    )
  }
  return value
}

/** The end user a request's header names, checked; `undefined` when it names none. */
export function headerEndUser(headers: RequestHeaders): string | undefined {
  const value = headers.get(endUserHeader)
  return value === null ? undefined : checkEndUser(value, endUserHeader)
}

/**
 * Notes the end user a request's body names, unless the host app or the header already named one
 * (they come first: the app knows its own session, the body may be its client's). OpenAI chat:
 * `user`; Responses: `user`, else `safety_identifier`; Anthropic: `metadata.user_id`; Gemini has
 * no such field (the header serves there). The body field is checked even when it is not used, so
 * a client learns of a bad id whichever way it is sent — when its key has `perUser` limits, which
 * an id the meter cannot hold would escape. For any other key the vendors' own rules hold: a body
 * field the gateway cannot take as an end-user id (a name with a space, non-ASCII, over 256
 * characters) is not attributed, never refused, since the vendor would have taken it.
 */
export function noteBodyEndUser(scope: RequestScope, protocol: ProtocolName, body: unknown): void {
  const strict = scope.key?.perUser !== undefined
  const checkEndUser = strict ? checkStrict : checkLenient
  let named: string | undefined
  switch (protocol) {
    case 'openai':
      named = checkEndUser(ownMember(body, 'user'), 'user')
      break
    case 'responses':
      named =
        checkEndUser(ownMember(body, 'user'), 'user') ??
        checkEndUser(ownMember(body, 'safety_identifier'), 'safety_identifier')
      break
    case 'anthropic':
      named = checkEndUser(ownMember(ownMember(body, 'metadata'), 'user_id'), 'metadata.user_id')
      break
    case 'gemini':
    // Never a client's protocol (ADR 0034): no body of it reaches a route.
    case 'converse':
      return
    default: {
      const unknown: never = protocol
      throw new Error(`Unknown protocol ${String(unknown)}`)
    }
  }
  if (named === undefined || scope.endUser !== undefined) return
  scope.endUser = named
  scope.event.endUser = named
}

const checkStrict = (value: unknown, field: string) => checkEndUserField(value, field)

/** A body field as an end user for a key without `perUser`: a wrong type is still refused. */
function checkLenient(value: unknown, field: string): string | undefined {
  if (typeof value !== 'string') return checkEndUserField(value, field)
  return value.length <= maxEndUserLength && endUserPattern.test(value)
    ? value || undefined
    : undefined
}

/** A member the object itself holds: a client body is no lookup table for inherited ones. */
function ownMember(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return Object.getOwnPropertyDescriptor(value, name)?.value
}
