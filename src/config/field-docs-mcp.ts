import { codeOnly, type FieldDoc } from './field-doc'

/** The descriptions of the MCP gateway's fields (`mcp`, `keys[].mcp`, `mcpSessionStore`). */
export const mcpFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  mcp: {
    text: "The MCP gateway: one Streamable HTTP endpoint in front of the organisation's tool servers, with the keys' allowlists, limits and records ([MCP gateway](mcp-gateway.md)).",
    defaultText: 'off',
  },
  'mcp.path': { text: 'The endpoint; `{path}/{server}` serves one server alone.', default: '/mcp' },
  'mcp.servers': 'The upstream MCP servers.',
  'mcp.servers[].id':
    'The prefix of its tools and prompts (`{id}__{tool}`): lowercase letters, digits and `-`, words joined by one `_`.',
  'mcp.servers[].url': 'Its Streamable HTTP endpoint.',
  'mcp.servers[].headers': {
    text: 'Headers sent to it (an API key); never shown to clients, scrubbed from errors.',
    defaultText: 'none',
  },
  'mcp.servers[].oauth': {
    text: 'An OAuth client-credentials grant: the token is cached and refreshed single-flight, sent as a bearer token.',
    defaultText: 'none',
  },
  'mcp.servers[].oauth.tokenUrl': 'The token endpoint.',
  'mcp.servers[].oauth.clientId': 'The client id (HTTP Basic, RFC 6749 §2.3.1).',
  'mcp.servers[].oauth.clientSecret': 'The client secret; scrubbed from errors.',
  'mcp.servers[].oauth.scope': { text: 'The scope asked for.', defaultText: 'none' },
  'mcp.servers[].oauth.resource': {
    text: "The RFC 8707 resource indicator (the server's canonical URI).",
    defaultText: 'none',
  },
  'mcp.servers[].transport': {
    text: 'How `url` is spoken: `streamable-http`, or `sse` for a server that only has the older HTTP+SSE transport (2024-11-05; `url` is then its SSE endpoint).',
    default: 'streamable-http',
  },
  'mcp.servers[].command': {
    text: 'A stdio server the CLI (or `createGatewayWithState`) starts, restarts when it dies and stops on close. Node only: elsewhere such a config is refused.',
    defaultText: 'none',
  },
  'mcp.servers[].args': { text: "The stdio server's arguments.", defaultText: 'none' },
  'mcp.servers[].env': {
    text: "The stdio server's environment: only these variables plus `PATH`, `HOME`, `LANG` and `TMPDIR` (never the gateway's own secrets).",
    defaultText: 'none',
  },
  'mcp.maxRequestBytes': {
    text: 'Largest request body; a larger one gets 413 with a JSON-RPC error.',
    defaultText: '4 MiB',
  },
  'mcp.maxResponseBytes': {
    text: 'Largest upstream answer to one request; past it the call fails with a JSON-RPC error.',
    defaultText: '4 MiB',
  },
  'mcp.callTimeoutMs': {
    text: 'Longest a forwarded request (a tool call) may take; then a JSON-RPC error.',
    default: 120000,
  },
  'mcp.maxCallsInFlight': {
    text: 'Tool calls in flight at once per key, on one instance; past it a JSON-RPC error.',
    default: 16,
  },
  'mcp.maxSessionsPerKey': {
    text: "Sessions one key may hold; past it, `initialize` ends the key's least recently used one (its client gets 404 and starts anew).",
    default: 100,
  },
  'mcp.sessionTtlSeconds': { text: 'A session idle this long is forgotten.', default: 3600 },
  mcpTransports: codeOnly(
    'McpTransportFactory',
    'Starts the `command` (stdio) servers; `createGatewayWithState` fills it on Node.',
    'none',
  ),
  mcpSessionStore: codeOnly(
    'McpSessionStore',
    'Where MCP sessions are kept; the CLI shares them through `state.redis`.',
    'memory',
  ),
  'keys[].mcp': {
    text: 'The MCP servers and tools the key may use. Deny by default: a key without it (and without a team grant) sees no server.',
    defaultText: 'none',
  },
  'keys[].mcp.servers': 'Server ids (`*` patterns) whose tools, prompts and resources are allowed.',
  'keys[].mcp.tools':
    'Prefixed tool names (`{server}__{tool}`, `*` patterns); with `servers`, they narrow it.',
}
