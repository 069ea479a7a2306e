import { displayKey, publicIdOf } from './database-key-format'

/**
 * The only form of a key that may appear in logs and events. A database key shows its public id,
 * as `keys list` and the console show it (`sk-mg-<id>-…`), so that a log line names the key it
 * belongs to; any other key shows its last four characters (`sk-…abcd`). Short or odd keys are
 * masked whole.
 */
export function maskKey(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return undefined
  const publicId = publicIdOf(secret)
  if (publicId !== undefined) return displayKey(publicId)
  return maskUnverifiedKey(secret)
}

/**
 * A key not (yet) found in the key store: its last four characters only, whatever its shape. A
 * forged `sk-mg-<id>-…` would otherwise log its refusals under the real key that id names.
 */
export function maskUnverifiedKey(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return undefined
  if (secret.length < 12) return 'sk-…'
  return `sk-…${secret.slice(-4)}`
}
