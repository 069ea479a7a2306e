import type { RequestHeaders } from '../http/gateway-request'
import type { ProtocolName } from '../protocols/protocol-name'

/**
 * A group's session affinity: requests that carry the same session hint go to the same upstream
 * (and the same pooled key) while it is healthy, so provider prompt caches keep hitting and state
 * bound to one upstream (Responses `encrypted_content`, stored responses, thought signatures)
 * stays valid.
 */
export type SessionAffinity = {
  /**
   * A request header whose value is the session hint (for example `x-session-id`); read before the
   * body's fields, which serve when the header is absent.
   */
  header?: string | undefined
}

/** Hints longer than this are cut: two sessions alike for this long share an upstream, harmlessly. */
const maxHintLength = 512

/**
 * The session hint of a request, or undefined when the group has no affinity or the request
 * carries none. Read, in order: the configured header; then by the client's protocol, Anthropic
 * `metadata.user_id`; OpenAI chat and Responses `prompt_cache_key`, else `user`. Gemini requests
 * carry no such field: only the header serves there.
 *
 * The hint is used for routing only: it never appears in events, logs or records.
 *
 * @param protocol The protocol the client speaks (of the route it called).
 * @param body The request body, already checked.
 */
export function sessionHintOf(
  protocol: ProtocolName,
  body: unknown,
  headers: RequestHeaders,
  affinity: SessionAffinity | undefined,
): string | undefined {
  if (affinity === undefined) return undefined
  if (affinity.header !== undefined) {
    const value = headers.get(affinity.header)
    if (value !== null && value !== '') return value.slice(0, maxHintLength)
  }
  switch (protocol) {
    case 'anthropic':
      return textOf(ownMember(ownMember(body, 'metadata'), 'user_id'))
    case 'openai':
    case 'responses':
      return textOf(ownMember(body, 'prompt_cache_key')) ?? textOf(ownMember(body, 'user'))
    case 'gemini':
    case 'converse':
      return undefined
    default: {
      const unknown: never = protocol
      throw new Error(`Unknown protocol ${String(unknown)}`)
    }
  }
}

/** A member the object itself holds: a client body is no lookup table for inherited ones. */
function ownMember(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return Object.getOwnPropertyDescriptor(value, name)?.value
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, maxHintLength) : undefined
}
