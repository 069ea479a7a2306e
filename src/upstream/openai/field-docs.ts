import type { FieldDoc } from '../../internal/field-doc'
import { httpEntryFieldDocs } from '../http-field-docs'

/** The fields of an `openai` entry (and of an entry without `provider`), by path in the entry. */
export const openaiFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  ...httpEntryFieldDocs,
  responses: {
    text: 'An upstream of an `openai` group that serves `/v1/responses` (api.openai.com, Azure): Responses API calls go there as they are. The mock serves it too.',
    default: false,
  },
}
