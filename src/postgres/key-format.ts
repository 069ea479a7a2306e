import { lowercaseAlphanumeric, randomToken } from './random'

/**
 * Database keys read `sk-mg-<public id>-<secret>`: 12 lowercase letters and digits that name the
 * key (safe to show, log and type), then 48 letters and digits (~285 bits) that only its holder
 * knows. The public id finds the row without a scan; the secret is checked by comparing SHA-256
 * digests in constant time. The shape follows TensorZero's `sk-t0-<public>-<secret>`; keys still
 * start with `sk-`, which every SDK and the gateway expect.
 */
const databaseKeyPattern = /^sk-mg-([a-z0-9]{12})-[A-Za-z0-9]{48}$/

/** Length of the public id. */
export const publicIdLength = 12
const secretLength = 48

/** A new database key and its public id. */
export function generateDatabaseKey(): { key: string; publicId: string } {
  const publicId = randomToken(publicIdLength, lowercaseAlphanumeric)
  return { key: `sk-mg-${publicId}-${randomToken(secretLength)}`, publicId }
}

/** The public id of a database key, or `undefined` when the text is not one. */
export function publicIdOf(key: string): string | undefined {
  return databaseKeyPattern.exec(key)?.[1]
}

/** What a listing shows of a key: its public part, never its secret. */
export function displayKey(publicId: string): string {
  return `sk-mg-${publicId}-…`
}
