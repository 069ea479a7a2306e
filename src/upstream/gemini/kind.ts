import * as z from 'zod/mini'
import { httpEntryShape, httpUpstreamPoolShape, upstreamSelectionShape } from '../entry-shape'
import { createFamilyUpstream } from '../http-kind'
import type { UpstreamKind, UpstreamKindSchema } from '../kind'
import { upstreamSpecificationVersion } from '../provider'

/** The schema of an `{ "provider": "gemini", … }` entry. */
export function geminiEntrySchema() {
  return z.strictObject({
    provider: z.literal('gemini'),
    ...httpEntryShape(),
    ...upstreamSelectionShape(),
    ...httpUpstreamPoolShape(),
  })
}

/** An `gemini` entry, checked. */
export type GeminiEntry = z.output<ReturnType<typeof geminiEntrySchema>>

/** Google's Gemini API over HTTP. */
export const geminiKind: UpstreamKind<GeminiEntry> = {
  specificationVersion: upstreamSpecificationVersion,
  name: 'gemini',
  protocols: ['gemini'],
  schema: () => geminiEntrySchema() as UpstreamKindSchema<GeminiEntry>,
  create: (settings, context) => createFamilyUpstream(settings, 'gemini', context),
}
