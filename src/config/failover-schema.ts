import * as z from 'zod/mini'

/**
 * The config of upstream selection and health (docs/routing-and-failover.md › Upstream health and selection): built on
 * demand, like the rest of the config's schemas, and spread into the group entries (the upstream entries' shared fields are in `upstream/entry-shape.ts`).
 */

const count = () => z.int().check(z.minimum(1))
const milliseconds = () => z.int().check(z.nonnegative())

/** Fields of a group: balancing, session affinity, circuit breakers, key pools. */
export function groupSelectionShape() {
  const headerName = z.pipe(
    z.string().check(z.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'expected an HTTP header name')),
    z.transform((name: string) => name.toLowerCase()),
  )
  return {
    balancing: z.optional(
      z.enum(['weighted', 'least-in-flight', 'latency', 'cost'], {
        error: 'expected "weighted", "least-in-flight", "latency" or "cost"',
      }),
    ),
    sessionAffinity: z.optional(
      z.union([z.boolean(), z.strictObject({ header: z.optional(headerName) })]),
    ),
    circuitBreaker: z.optional(
      z.union([
        z.literal(false),
        z.strictObject({
          consecutiveFailures: z.optional(count()),
          failureRatio: z.optional(z.number().check(z.positive(), z.maximum(1))),
          minimumCalls: z.optional(count()),
          windowMs: z.optional(z.int().check(z.minimum(1000))),
          cooldownMs: z.optional(milliseconds()),
          maxCooldownMs: z.optional(milliseconds()),
          jitter: z.optional(z.number().check(z.nonnegative(), z.lt(1))),
          whenAllResting: z.optional(
            z.enum(['try-soonest', 'refuse'], { error: 'expected "try-soonest" or "refuse"' }),
          ),
        }),
      ]),
    ),
    keyPool: z.optional(
      z.strictObject({
        rotation: z.optional(
          z.enum(['round-robin', 'least-used'], {
            error: 'expected "round-robin" or "least-used"',
          }),
        ),
        rejectedCooldownMs: z.optional(milliseconds()),
        quotaCooldownMs: z.optional(milliseconds()),
      }),
    ),
  }
}
