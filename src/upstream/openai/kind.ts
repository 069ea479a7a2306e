import * as z from 'zod/mini'
import { httpEntryShape, httpUpstreamPoolShape, upstreamSelectionShape } from '../entry-shape'
import { createFamilyUpstream } from '../http-kind'
import type { UpstreamKind, UpstreamKindSchema } from '../kind'
import { upstreamSpecificationVersion } from '../provider'

/**
 * The fields of an OpenAI-family HTTP upstream, also those of an entry without `provider` in any
 * group (its protocol then picks the family).
 */
export function openaiEntryShape() {
  return {
    ...httpEntryShape(),
    /** An OpenAI upstream that serves `/v1/responses` (api.openai.com, Azure): called there. */
    responses: z.optional(z.boolean()),
    ...upstreamSelectionShape(),
    ...httpUpstreamPoolShape(),
  }
}

/** The schema of an `{ "provider": "openai", … }` entry. */
export function openaiEntrySchema() {
  return z.strictObject({ provider: z.literal('openai'), ...openaiEntryShape() })
}

/** An `openai` entry, checked. */
export type OpenAIEntry = z.output<ReturnType<typeof openaiEntrySchema>>

/**
 * OpenAI's API and every server compatible with it, over HTTP; an entry marked `responses` speaks
 * the Responses API, a protocol of its own.
 */
export const openaiKind: UpstreamKind<OpenAIEntry> = {
  specificationVersion: upstreamSpecificationVersion,
  name: 'openai',
  protocols: ['openai'],
  schema: () => openaiEntrySchema() as UpstreamKindSchema<OpenAIEntry>,
  create: (settings, context) =>
    createFamilyUpstream(settings, settings.responses === true ? 'responses' : 'openai', context),
}
