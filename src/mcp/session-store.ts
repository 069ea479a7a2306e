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
  /** Creates (or replaces) a session. */
  put(session: McpSession): MaybePromise<void>
  /** Records the upstream session of one server, when the client session still exists. */
  setUpstream(id: string, server: string, upstreamSessionId: string): MaybePromise<void>
  delete(id: string): MaybePromise<void>
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
 * `Map` in use order (a read moves the session to the end), so the oldest is first to go.
 */
export function createMemoryMcpSessionStore(options: MemorySessionStoreOptions): McpSessionStore {
  const ttlMs = options.ttlSeconds * 1000
  const max = options.maxSessions ?? 100_000
  const sessions = new Map<string, { session: McpSession; expiresAt: number }>()
  function sweep(now: number) {
    for (const [id, entry] of sessions) {
      if (entry.expiresAt > now && sessions.size <= max) break
      sessions.delete(id)
    }
  }
  return {
    get(id) {
      const now = options.now()
      const entry = sessions.get(id)
      if (entry === undefined) return undefined
      sessions.delete(id)
      if (entry.expiresAt <= now) return undefined
      entry.expiresAt = now + ttlMs
      sessions.set(id, entry)
      return structuredClone(entry.session)
    },
    put(session) {
      const now = options.now()
      sessions.delete(session.id)
      sessions.set(session.id, { session: structuredClone(session), expiresAt: now + ttlMs })
      sweep(now)
    },
    setUpstream(id, server, upstreamSessionId) {
      const entry = sessions.get(id)
      entry?.session.upstream.set(server, upstreamSessionId)
    },
    delete(id) {
      sessions.delete(id)
    },
    get size() {
      return sessions.size
    },
  }
}
