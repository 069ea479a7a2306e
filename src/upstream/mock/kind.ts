import * as z from 'zod/mini'
import { upstreamSelectionShape } from '../entry-shape'
import type { UpstreamKind, UpstreamKindSchema } from '../kind'
import { upstreamSpecificationVersion } from '../provider'
import { createMockProvider } from './mock-provider'

/** The schema of a `{ "provider": "mock", … }` entry. */
export function mockEntrySchema() {
  return z.strictObject({
    provider: z.literal('mock'),
    id: z.optional(z.string().check(z.minLength(1))),
    weight: z.optional(z.number().check(z.positive())),
    reply: z.optional(z.string()),
    chunkDelayMs: z.optional(z.int().check(z.nonnegative())),
    responses: z.optional(z.boolean()),
    ...upstreamSelectionShape(),
  })
}

/** A `mock` entry, checked. */
export type MockEntry = z.output<ReturnType<typeof mockEntrySchema>>

/** The in-process mock upstream, in any family: for demos and tests. */
export const mockKind: UpstreamKind<MockEntry> = {
  specificationVersion: upstreamSpecificationVersion,
  name: 'mock',
  protocols: ['openai', 'anthropic', 'gemini'],
  schema: () => mockEntrySchema() as UpstreamKindSchema<MockEntry>,
  create: ({ provider: _kind, responses, ...settings }, context) =>
    createMockProvider({
      ...settings,
      id: context.id,
      // A mock marked `responses` speaks the Responses API, a protocol of its own.
      protocol: responses === true ? 'responses' : context.protocol,
      now: context.now,
    }),
}
