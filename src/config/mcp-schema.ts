import * as z from 'zod/mini'
import { checkAlways } from '../internal/check-always'
import { positiveInt } from './schema-parts'

/** A key's or team's MCP grant (`keys[].mcp`, `teams[].mcp`): `*` patterns. */
export function buildMcpGrantSchema() {
  const patterns = z.array(z.string().check(z.minLength(1), z.maxLength(256)))
  return z.strictObject({ servers: z.optional(patterns), tools: z.optional(patterns) })
}

/**
 * The MCP gateway (`mcp`): the path it answers, its upstream servers (Streamable HTTP with static
 * headers or an OAuth client-credentials grant; stdio, started by the CLI on Node), and its
 * bounds. Server ids prefix tool names (`{id}__{tool}`), so they hold no `__`.
 */
export function buildMcpSchema() {
  const header = z.record(z.string().check(z.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/)), z.string())
  const server = z
    .strictObject({
      id: z
        .string()
        .check(
          z.regex(
            /^[a-z0-9-]+(?:_[a-z0-9-]+)*$/,
            'use lowercase letters, digits and "-", words joined by one "_" (never "__")',
          ),
          z.maxLength(64),
        ),
      url: z.optional(z.string().check(z.regex(/^https?:\/\/\S+$/, 'expected an http(s) URL'))),
      transport: z.optional(z.enum(['streamable-http', 'sse'])),
      headers: z.optional(header),
      oauth: z.optional(
        z.strictObject({
          tokenUrl: z.string().check(z.regex(/^https?:\/\/\S+$/, 'expected an http(s) URL')),
          clientId: z.string().check(z.minLength(1)),
          clientSecret: z.string().check(z.minLength(1)),
          scope: z.optional(z.string()),
          resource: z.optional(z.string()),
        }),
      ),
      command: z.optional(z.string().check(z.minLength(1))),
      args: z.optional(z.array(z.string())),
      env: z.optional(z.record(z.string(), z.string())),
    })
    .check(
      z.refine((entry) => (entry.url === undefined) !== (entry.command === undefined), {
        message: 'give exactly one of "url" or "command"',
        when: checkAlways,
      }),
      z.refine((entry) => entry.transport === undefined || entry.url !== undefined, {
        message: '"transport" is for a "url" server (a "command" server speaks stdio)',
        when: checkAlways,
      }),
    )
  return z.strictObject({
    path: z._default(
      z
        .string()
        .check(z.regex(/^\/[A-Za-z0-9_./-]*[A-Za-z0-9_-]$/, 'expected a path such as "/mcp"')),
      '/mcp',
    ),
    servers: z.array(server).check(
      z.refine((list) => new Set(list.map((entry) => entry.id)).size === list.length, {
        message: 'server ids must be unique',
        when: checkAlways,
      }),
    ),
    maxRequestBytes: z._default(positiveInt(), 4 * 1024 * 1024),
    maxResponseBytes: z._default(positiveInt(), 4 * 1024 * 1024),
    callTimeoutMs: z._default(positiveInt(), 120_000),
    maxCallsInFlight: z._default(positiveInt(), 16),
    maxSessionsPerKey: z._default(positiveInt(), 100),
    sessionTtlSeconds: z._default(positiveInt(), 3600),
  })
}
