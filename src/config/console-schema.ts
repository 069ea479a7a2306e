import * as z from 'zod/mini'
import { positiveInt } from './schema-parts'

/** A sign-in token as the config gives it: the token itself, or its SHA-256 (`sha256:<hex>`). */
const tokenPattern = /^(?:sha256:[0-9a-fA-F]{64}|[\x21-\x7e]{16,})$/

/**
 * The `console` section: the web console of `model-gateway/console` (`createConsole`), which the
 * CLI serves beside the API when the section is there. The core only validates it (and expands
 * its `${NAME}` references with the rest of the config); `createConsole(gateway)` reads it back.
 */
export function buildConsoleSchema() {
  const token = z
    .string()
    .check(
      z.regex(
        tokenPattern,
        'expected a token of at least 16 printable characters without spaces, or "sha256:" and 64 hex digits',
      ),
    )
  const day = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a day as YYYY-MM-DD'))
  const usd = z.number().check(z.nonnegative())
  return z.strictObject({
    /** Where the console is mounted (default `/console`). */
    path: z.optional(
      z
        .string()
        .check(
          z.regex(
            /^\/[A-Za-z0-9._~-]+(?:\/[A-Za-z0-9._~-]+)*$/,
            'expected a path such as "/console", without a trailing slash',
          ),
        ),
    ),
    /** Tokens that sign in as an admin (every key, edits). */
    adminTokens: z.optional(z.array(token)),
    /** Tokens that sign in as a viewer (every key, read-only). */
    viewerTokens: z.optional(z.array(token)),
    /** Whether key holders may sign in with their own `sk-` key, to see that key only. */
    keyLogin: z.optional(z.boolean()),
    /** The base address the console shows and fills into the call guide. */
    publicBaseUrl: z.optional(
      z
        .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
        .check(z.refine((url) => !url.endsWith('/'), 'expected a URL without a trailing slash')),
    ),
    /** The secret session cookies are signed with; give the same one to every instance. */
    sessionSecret: z.optional(
      z.string().check(z.minLength(32, 'a session secret is at least 32 characters')),
    ),
    /** How long a sign-in lasts. */
    sessionTtlMinutes: z.optional(positiveInt().check(z.maximum(43_200))),
    /** The organisation's spend, shown to admins and viewers against a budget or a balance. */
    organisation: z.optional(
      z.strictObject({
        budgetUsd: z.optional(usd),
        budgetPer: z.optional(z.enum(['day', 'month'])),
        balance: z.optional(z.strictObject({ usd, since: day })),
      }),
    ),
  })
}
