import * as z from 'zod/mini'
import { httpEntryShape, httpUpstreamPoolShape, upstreamSelectionShape } from '../entry-shape'
import { createFamilyUpstream } from '../http-kind'
import type { UpstreamKind, UpstreamKindSchema } from '../kind'
import { upstreamSpecificationVersion } from '../provider'

/** The schema of an `{ "provider": "anthropic", … }` entry. */
export function anthropicEntrySchema() {
  return z.strictObject({
    provider: z.literal('anthropic'),
    ...httpEntryShape(),
    ...upstreamSelectionShape(),
    ...httpUpstreamPoolShape(),
  })
}

/** An `anthropic` entry, checked. */
export type AnthropicEntry = z.output<ReturnType<typeof anthropicEntrySchema>>

/** Anthropic's Messages API over HTTP. */
export const anthropicKind: UpstreamKind<AnthropicEntry> = {
  specificationVersion: upstreamSpecificationVersion,
  name: 'anthropic',
  protocols: ['anthropic'],
  schema: () => anthropicEntrySchema() as UpstreamKindSchema<AnthropicEntry>,
  create: (settings, context) => createFamilyUpstream(settings, 'anthropic', context),
}
