import * as z from 'zod/mini'
import { nonNegativeInt, oneOf } from './schema-parts'

/** An origin as browsers send it: scheme, host and optional port, lower-case, no path. */
const originPattern =
  /^[a-z][a-z0-9+.-]*:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^[a-z][a-z0-9+.-]*:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/

/**
 * The `cors` section: answers for browser apps that call the gateway with a key. Off when absent
 * (a preflight `OPTIONS` gets 405, no answer carries `access-control-*` headers).
 */
export function buildCorsSchema() {
  const origin = z
    .string()
    .check(
      z.regex(
        originPattern,
        'expected an origin such as "https://app.example.com": scheme, host and port, lower-case, no path or trailing slash',
      ),
    )
  const headerName = z
    .string()
    .check(z.regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/, 'expected a lower-case HTTP header name'))
  const anyOrigin = z.literal('*')
  const originList = z.array(origin).check(z.minLength(1, 'list at least one origin, or give "*"'))
  return z.strictObject({
    /** The origins allowed to call the gateway, or `"*"` for any origin. */
    origins: oneOf<'*' | string[]>([anyOrigin, originList], (value) =>
      value === '*'
        ? anyOrigin
        : Array.isArray(value)
          ? originList
          : 'expected a list of origins, or "*" for any origin',
    ),
    /**
     * Request headers allowed beyond those the official SDKs send; a name ending in `*` allows
     * every header it begins (`x-my-app-*`).
     */
    allowHeaders: z.optional(z.array(headerName)),
    /** Answer headers a page may read beyond the gateway's own (rate limits, request id, …). */
    exposeHeaders: z.optional(z.array(headerName)),
    /** How long a browser may keep a preflight's answer (default 7200 s, Chromium's maximum). */
    maxAgeSeconds: z.optional(nonNegativeInt().check(z.maximum(86_400))),
  })
}
