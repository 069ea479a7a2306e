import type { MaybePromise } from '../internal/maybe-promise'

/**
 * A client's MCP session, as any instance needs it to serve the session's next request: whose it
 * is, what it negotiated, and the session each upstream server gave the gateway for it.
 */
export type McpSession = {
  id: string
  /** The id of the key that opened it: every request of the session must present that key. */
  keyId: string
  /** The server of a `/mcp/{server}` session; absent for the aggregated `/mcp`. */
  server?: string | undefined
  protocolVersion: string
  /** The client's `initialize` capabilities and info, sent on to each upstream it opens. */
  clientCapabilities: Record<string, unknown>
  clientInfo: Record<string, unknown>
  /** Upstream session ids by server id (`""`: the server issued none). */
  upstream: Map<string, string>
}

/**
 * Where MCP sessions are kept: in memory (`createMemoryMcpSessionStore`, one instance), or in
 * Redis (`createRedisMcpSessionStore`) so that any instance serves any session. Every read renews
 * the session's idle lifetime.
 */
export interface McpSessionStore {
  get(id: string): MaybePromise<McpSession | undefined>
  /**
   * Creates (or replaces) a session. With `maxPerKey`, the key keeps at most that many sessions:
   * its least recently used ones are dropped to make room, and returned, so that their upstream
   * sessions are ended (`mcp.maxSessionsPerKey`). A store that returns nothing caps nothing.
   */
  put(session: McpSession, maxPerKey?: number): MaybePromise<readonly McpSession[] | void>
  /** Records the upstream session of one server, when the client session still exists. */
  setUpstream(id: string, server: string, upstreamSessionId: string): MaybePromise<void>
  /** Forgets a session; `keyId` (its key's) lets a store keep its per-key count exact. */
  delete(id: string, keyId?: string): MaybePromise<void>
  /** Sessions held (memory), for the closing figures; absent for shared stores. */
  readonly size?: number
}

/** Options of the memory store. */
export type MemorySessionStoreOptions = {
  ttlSeconds: number
  now: () => number
  /** The most sessions held; the least recently used goes first (default 100000). */
  maxSessions?: number
}

/**
 * Sessions in this process's memory, forgotten after `ttlSeconds` idle and bounded in number: a
 * `Map` in use order (a read moves the session to the end), so the oldest is first to go. Each
 * key's sessions are also kept in use order, for `put`'s per-key bound.
 */
export function createMemoryMcpSessionStore(options: MemorySessionStoreOptions): McpSessionStore {
  const ttlMs = options.ttlSeconds * 1000
  const max = options.maxSessions ?? 100_000
  const sessions = new Map<string, { session: McpSession; expiresAt: number }>()
  /** Session ids by key id, least recently used first. */
  const byKey = new Map<string, Set<string>>()
  function drop(id: string) {
    const entry = sessions.get(id)
    if (entry === undefined) return
    sessions.delete(id)
    const ids = byKey.get(entry.session.keyId)
    ids?.delete(id)
    if (ids?.size === 0) byKey.delete(entry.session.keyId)
  }
  function touch(keyId: string, id: string) {
    const ids = byKey.get(keyId) ?? new Set()
    ids.delete(id)
    ids.add(id)
    byKey.set(keyId, ids)
  }
  function sweep(now: number) {
    for (const [id, entry] of sessions) {
      if (entry.expiresAt > now && sessions.size <= max) break
      drop(id)
    }
  }
  return {
    get(id) {
      const now = options.now()
      const entry = sessions.get(id)
      if (entry === undefined) return undefined
      if (entry.expiresAt <= now) {
        drop(id)
        return undefined
      }
      sessions.delete(id)
      entry.expiresAt = now + ttlMs
      sessions.set(id, entry)
      touch(entry.session.keyId, id)
      return structuredClone(entry.session)
    },
    put(session, maxPerKey) {
      const now = options.now()
      drop(session.id)
      const evicted: McpSession[] = []
      const ids = byKey.get(session.keyId)
      if (maxPerKey !== undefined && ids !== undefined) {
        // The key's least recently used sessions (expired ones first) make room for this one.
        for (const id of ids) {
          if (ids.size < maxPerKey) break
          const entry = sessions.get(id)
          drop(id)
          if (entry !== undefined && entry.expiresAt > now) evicted.push(entry.session)
        }
      }
      sessions.set(session.id, { session: structuredClone(session), expiresAt: now + ttlMs })
      touch(session.keyId, session.id)
      sweep(now)
      return evicted
    },
    setUpstream(id, server, upstreamSessionId) {
      const entry = sessions.get(id)
      entry?.session.upstream.set(server, upstreamSessionId)
    },
    delete(id) {
      drop(id)
    },
    get size() {
      return sessions.size
    },
  }
}
