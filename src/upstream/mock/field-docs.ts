import type { FieldDoc } from '../../internal/field-doc'

/** The fields of a `mock` entry, by path in the entry (the shared ones are the HTTP kinds'). */
export const mockFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  reply: {
    text: "The mock's fixed reply.",
    defaultText: 'echoes the last user message',
  },
  chunkDelayMs: {
    text: "The mock's pause between streamed chunks.",
    default: 0,
  },
}
