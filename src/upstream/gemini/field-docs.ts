import type { FieldDoc } from '../../internal/field-doc'
import { httpEntryFieldDocs } from '../http-field-docs'

/** The fields of an `gemini` entry, by path in the entry: the HTTP ones, nothing of its own. */
export const geminiFieldDocs: Readonly<Record<string, string | FieldDoc>> = httpEntryFieldDocs
