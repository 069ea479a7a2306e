import { z } from 'zod'

const count = z.number().int().nonnegative()
const when = z.union([
  z.date(),
  z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time' }),
])

const limitsFor = <T extends z.ZodType>(value: T) =>
  z.strictObject({
    requestsPerMinute: value.optional(),
    inputTokensPerMinute: value.optional(),
    outputTokensPerMinute: value.optional(),
    concurrency: value.optional(),
    tokensPerDay: value.optional(),
    tokensPerMonth: value.optional(),
  })

/** What `createKey` takes. */
export const createKeyInputSchema = z.strictObject({
  /** The key's id in usage records; default `key_<public id>`. */
  id: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
      'ids are 1 to 128 letters, digits, ".", "_", ":" and "-"',
    )
    .optional(),
  name: z.string().min(1).max(200).optional(),
  groups: z.array(z.string().min(1)).optional(),
  quotaTokens: count.optional(),
  limits: limitsFor(count).optional(),
  expiresAt: when.optional(),
})

/** What `updateKey` takes: absent fields stay as they are; `null` clears one. */
export const updateKeyInputSchema = z.strictObject({
  name: z.string().min(1).max(200).nullable().optional(),
  groups: z.array(z.string().min(1)).nullable().optional(),
  quotaTokens: count.nullable().optional(),
  /** Merged into the key's limits; a `null` limit is removed. */
  limits: limitsFor(count.nullable()).optional(),
  expiresAt: when.nullable().optional(),
})

/** The input of `createKey`. */
export type CreateKeyInput = z.input<typeof createKeyInputSchema>
/** The input of `updateKey`. */
export type UpdateKeyInput = z.input<typeof updateKeyInputSchema>

/** Thrown by the key admin functions for bad input, or an id that exists or does not. */
export class KeyAdminError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'KeyAdminError'
  }
}

/**
 * Validates admin input with zod.
 *
 * @throws KeyAdminError listing every bad field
 */
export function parseKeyInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input)
  if (result.success) return result.data
  throw new KeyAdminError(
    result.error.issues
      .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
      .join('; '),
  )
}
