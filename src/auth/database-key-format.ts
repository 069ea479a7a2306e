/**
 * Database keys read `sk-mg-<public id>-<secret>`: 12 lowercase letters and digits that name the
 * key (safe to show, log and type), then 48 letters and digits (~285 bits) that only its holder
 * knows. The public id finds the row without a scan; the secret is checked by comparing SHA-256
 * digests in constant time. The shape follows TensorZero's `sk-t0-<public>-<secret>`; keys still
 * start with `sk-`, which every SDK and the gateway expect.
 *
 * The format lives here, beside the masking, so that a key is shown the same way wherever it
 * appears — `keys list`, the console, the request log, `/v1/usage` — and a log line can be matched
 * to the key it names. The key stores (PostgreSQL, the console's memory store) generate and look
 * keys up by it.
 */
const databaseKeyPattern = /^sk-mg-([a-z0-9]{12})-[A-Za-z0-9]{48}$/

/** The length of a database key: `sk-mg-`, the public id, `-`, the secret. */
const databaseKeyLength = 6 + 12 + 1 + 48

/** The public id of a database key, or `undefined` when the text is not one. */
export function publicIdOf(key: string): string | undefined {
  // The length and prefix first: this runs for every request's key, most of which are not.
  if (key.length !== databaseKeyLength || !key.startsWith('sk-mg-')) return undefined
  return databaseKeyPattern.exec(key)?.[1]
}

/** What a listing shows of a key: its public part, never its secret. */
export function displayKey(publicId: string): string {
  return `sk-mg-${publicId}-…`
}
