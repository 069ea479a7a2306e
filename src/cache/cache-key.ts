import type { KeyRecord } from '../auth/key-store'
import type { RequestHeaders } from '../http/gateway-request'
import type { ProtocolName } from '../protocols/protocol-name'
import type { GroupCachePolicy } from '../routing/group-registry'
import { canonicalBody, canonicalJson } from './canonical-json'

/** What a request asks of the cache (`cache-control`): use it, refresh it, or leave it alone. */
export type CacheControl = 'use' | 'refresh' | 'bypass'

/**
 * The request's `cache-control` as the cache reads it: `no-store` neither reads nor writes
 * (`bypass`); `no-cache` skips the lookup and writes the new answer (`refresh`); anything else,
 * or none, uses the cache. Directives are case-insensitive and may be listed with others.
 */
export function cacheControlOf(headers: RequestHeaders): CacheControl {
  const value = headers.get('cache-control')
  if (value === null) return 'use'
  const directives = value
    .toLowerCase()
    .split(',')
    .map((part) => part.trim().split('=')[0])
  if (directives.includes('no-store')) return 'bypass'
  if (directives.includes('no-cache')) return 'refresh'
  return 'use'
}

/** The scope an entry belongs to, as the key names it: never wider than the group's `scope`. */
export function scopeOf(
  policy: GroupCachePolicy,
  key: KeyRecord,
  team: { id: string } | undefined,
): string {
  switch (policy.scope ?? 'key') {
    case 'organisation':
      return 'o'
    case 'team':
      // A key without a team keeps its own entries: widening it would share them with no one
      // it belongs with.
      return team === undefined ? `k:${key.id}` : `t:${team.id}`
    default:
      return `k:${key.id}`
  }
}

/** Everything an entry's key is made of. */
export type CacheKeyParts = {
  scope: string
  protocol: ProtocolName
  group: string
  upstreamModel: string
  /** The client's validated body. */
  body: unknown
  /** Request headers that shape the answer (`anthropic-version`, `anthropic-beta`). */
  headers: RequestHeaders
}

/**
 * The text an entry's key is hashed from: a canonical JSON object of the scope, the client
 * protocol (which names the route: Gemini's stream and JSON routes share entries), the group, upstream model, the headers that shape an Anthropic answer, and the canonical body less
 * the members that cannot change the answer. Versioned, so that a change of entry format never
 * reads an old entry.
 */
export function cacheKeyText(parts: CacheKeyParts): string {
  return canonicalJson({
    v: 1,
    scope: parts.scope,
    protocol: parts.protocol,
    group: parts.group,
    upstreamModel: parts.upstreamModel,
    hdr: {
      'anthropic-version': parts.headers.get('anthropic-version') ?? undefined,
      'anthropic-beta': parts.headers.get('anthropic-beta') ?? undefined,
    },
    body: { canonical: canonicalBody(parts.body) },
  })
}

/** The entry's key: the SHA-256 of `cacheKeyText`, in hex (Web Crypto, on every runtime). */
export async function cacheKey(parts: CacheKeyParts): Promise<string> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(cacheKeyText(parts)),
  )
  let hex = ''
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/**
 * Why a request is never answered from the cache, nor cached: its answer depends on state the
 * key cannot name (a Responses request that continues a stored conversation, runs in the
 * background or is to be stored), or has parts the cached form does not keep (several choices,
 * log probabilities). `undefined` when it may be cached.
 */
export function uncacheableRequest(protocol: ProtocolName, body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return 'body'
  const record = body as Record<string, unknown>
  if (protocol === 'responses') {
    for (const name of ['previous_response_id', 'conversation', 'background']) {
      // lookup-safe: a literal list of the API's own member names
      if (record[name] !== undefined && record[name] !== null && record[name] !== false) return name
    }
    if (record['store'] === true) return 'store'
  }
  const generation = record['generationConfig']
  if (generation !== null && typeof generation === 'object') {
    const count = (generation as Record<string, unknown>)['candidateCount']
    if (typeof count === 'number' && count > 1) return 'candidateCount'
  }
  if (typeof record['n'] === 'number' && record['n'] > 1) return 'n'
  if (record['logprobs'] === true || record['top_logprobs'] !== undefined) return 'logprobs'
  return undefined
}
