/** The description of one config field (see `config/field-docs.ts`). */
export type FieldDoc = {
  /** One or two sentences, plain text: editors show it as it is. */
  text: string
  /** The value the gateway uses when the field is left out, where the zod schema does not say. */
  default?: unknown
  /** The default in words, when it is not one value ("all groups", "derived from the hash"). */
  defaultText?: string
  /** For a field that takes code: what it takes (`KeyStore`, `(secret) => string`). */
  type?: string
}

/** A field that takes code: a plug-in object or a function, passed to `createGateway()`. */
export const codeOnly = (type: string, text: string, defaultText?: string): FieldDoc => ({
  type,
  text,
  ...(defaultText === undefined ? {} : { defaultText }),
})
