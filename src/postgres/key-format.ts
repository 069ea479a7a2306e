import { lowercaseAlphanumeric, randomToken } from './random'

// The format of a database key (`sk-mg-<public id>-<secret>`) is defined with the masking in
// auth/, so that every place that shows a key shows it the same way.
export { displayKey, publicIdOf } from '../auth/database-key-format'

/** Length of the public id. */
export const publicIdLength = 12
const secretLength = 48

/** A new database key and its public id. */
export function generateDatabaseKey(): { key: string; publicId: string } {
  const publicId = randomToken(publicIdLength, lowercaseAlphanumeric)
  return { key: `sk-mg-${publicId}-${randomToken(secretLength)}`, publicId }
}
