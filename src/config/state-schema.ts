import * as z from 'zod/mini'
import { nonNegativeInt, positiveInt } from './schema-parts'

/**
 * Shared state: where keys, usage and limits live when several instances (or restarts) must
 * agree. The core only validates it; `createGatewayWithState` from `model-gateway/node` connects
 * the URLs (the core imports no driver).
 */
export function buildStateConfigSchema() {
  const milliseconds = nonNegativeInt()
  const redisUrl = z
    .string()
    .check(z.regex(/^rediss?:\/\/\S+$/, 'expected a redis:// or rediss:// URL'))
  return z.strictObject({
    /**
     * Redis: a URL (one node), `{ cluster: [seed URLs] }` (Redis Cluster) or
     * `{ sentinel: { nodes: [sentinel URLs], name } }` (a Sentinel-managed primary).
     */
    redis: z.optional(
      z.union([
        redisUrl,
        z.strictObject({ cluster: z.array(redisUrl).check(z.minLength(1), z.maxLength(64)) }),
        z.strictObject({
          sentinel: z.strictObject({
            nodes: z.array(redisUrl).check(z.minLength(1), z.maxLength(64)),
            name: z
              .string()
              .check(z.regex(/^[\w.-]{1,64}$/, 'use 1 to 64 letters, digits, ".", "-", "_"')),
          }),
        }),
      ]),
    ),
    /** PostgreSQL URL: keys and the usage ledger persist. */
    postgres: z.optional(
      z
        .string()
        .check(z.regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')),
    ),
    /** Namespace of Redis keys and Postgres tables (default "mg"). */
    prefix: z.optional(
      z
        .string()
        .check(z.regex(/^[a-z][a-z0-9_]{0,23}$/, 'use 1 to 24 lowercase letters, digits and "_"')),
    ),
    /** Postgres schema of the tables (default: the connection's search_path). */
    schema: z.optional(
      z
        .string()
        .check(
          z.regex(/^[a-z_][a-z0-9_]{0,29}$/, 'use up to 30 lowercase letters, digits and "_"'),
        ),
    ),
    /** How long Postgres key lookups are cached, found and not found (default 5000 ms each). */
    keyCache: z.optional(
      z.strictObject({ ttlMs: z.optional(milliseconds), negativeTtlMs: z.optional(milliseconds) }),
    ),
    /** Batching of the Postgres usage ledger. */
    ledger: z.optional(
      z.strictObject({
        flushIntervalMs: z.optional(positiveInt()),
        batchSize: z.optional(positiveInt()),
        maxQueue: z.optional(positiveInt()),
        drainTimeoutMs: z.optional(milliseconds),
      }),
    ),
    /** Longest a Redis call may take before the failure policy applies (default 200 ms). */
    redisTimeoutMs: z.optional(positiveInt().check(z.maximum(60_000))),
    /** Lease of a reservation in the shared meter, renewed every third (default 60000 ms). */
    leaseMs: z.optional(z.int().check(z.minimum(1000))),
    /** What the shared meter does while Redis does not answer. */
    onFailure: z.optional(
      z.strictObject({
        budgets: z.optional(z.enum(['closed', 'open'])),
        windows: z.optional(z.enum(['local', 'closed'])),
        expectedInstances: z.optional(positiveInt()),
      }),
    ),
  })
}
