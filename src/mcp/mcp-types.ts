export type { McpGrant } from '../auth/key-store'

/** OAuth 2.0 client-credentials grant of an upstream MCP server (RFC 6749 §4.4). */
export type McpOAuthConfig = {
  tokenUrl: string
  clientId: string
  clientSecret: string
  scope?: string | undefined
  /** RFC 8707 resource indicator (the server's canonical URI), sent when given. */
  resource?: string | undefined
}

/** One upstream MCP server (`mcp.servers[]`). */
export type McpServerConfig = {
  /** The prefix of its tools and prompts (`{id}__{tool}`): `[a-z0-9-]`, words joined by one `_`. */
  id: string
  /** Its Streamable HTTP endpoint; absent for a stdio server (`command`). */
  url?: string | undefined
  /** How `url` is spoken: Streamable HTTP (default) or the older HTTP+SSE (2024-11-05). */
  transport?: 'streamable-http' | 'sse' | undefined
  /** Static headers sent upstream (an API key); never shown to clients, scrubbed from errors. */
  headers?: Readonly<Record<string, string>> | undefined
  oauth?: McpOAuthConfig | undefined
  /** A stdio server the CLI starts (Node only). */
  command?: string | undefined
  args?: readonly string[] | undefined
  env?: Readonly<Record<string, string>> | undefined
}

/** The `mcp` section of the config, after validation and defaults. */
export type McpConfig = {
  path: string
  servers: readonly McpServerConfig[]
  /** Largest request body, and largest upstream answer, in bytes (default 4 MiB each). */
  maxRequestBytes: number
  maxResponseBytes: number
  /** Longest a forwarded request (a tool call) may take (default 120000 ms). */
  callTimeoutMs: number
  /** Calls in flight at once per key on one instance (default 16). */
  maxCallsInFlight: number
  /**
   * Sessions one key may hold (default 100): past it, `initialize` ends the key's least recently
   * used session to make room.
   */
  maxSessionsPerKey: number
  /** A session idle this long is forgotten (default 3600 s). */
  sessionTtlSeconds: number
}
