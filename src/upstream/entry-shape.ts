import * as z from 'zod/mini'

/**
 * The config fields the built-in upstream kinds share, as zod shapes to spread into an entry's
 * schema. Built on demand, like every config schema (they cost at first check, not at import).
 */

/** Fields every upstream entry written in the config may carry (HTTP and mock). */
export function upstreamSelectionShape() {
  return {
    /** The most calls this upstream is given at once; past it another is picked, or 503/529. */
    maxConcurrent: z.optional(z.int().check(z.minimum(1))),
    /** Its priority tier: lower first (default 0). */
    priority: z.optional(z.int().check(z.minimum(0), z.maximum(1000))),
    /** × the catalogue's price of what it answers (default 1). */
    priceMultiplier: z.optional(z.number().check(z.positive(), z.maximum(1000))),
  }
}

/** Fields of an HTTP upstream: a pool of keys, besides the single `apiKey`. */
export function httpUpstreamPoolShape() {
  return {
    /** Several keys of the same upstream, rotated per call; one the upstream refuses leaves rotation. */
    apiKeys: z.optional(
      z
        .array(z.string().check(z.minLength(1, 'expected a non-empty key')))
        .check(z.minLength(1, 'give at least one key, or use "apiKey"')),
    ),
  }
}

/** The fields of an HTTP upstream of any family: where it is, its key or keys, its headers. */
export function httpEntryShape() {
  return {
    id: z.optional(z.string().check(z.minLength(1))),
    baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
    apiKey: z.optional(z.string()),
    headers: z.optional(z.record(z.string(), z.string())),
    weight: z.optional(z.number().check(z.positive())),
  }
}

/** The settings of an HTTP upstream entry, after its schema (without `provider`). */
export type HttpEntrySettings = {
  id?: string | undefined
  baseUrl: string
  apiKey?: string | undefined
  apiKeys?: string[] | undefined
  headers?: Record<string, string> | undefined
  weight?: number | undefined
  maxConcurrent?: number | undefined
  priority?: number | undefined
  priceMultiplier?: number | undefined
}
