/**
 * The only form of a key that may appear in logs and events: `sk-…abcd`, the last four
 * characters. Short or odd keys are masked whole.
 */
export function maskKey(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return undefined
  if (secret.length < 12) return 'sk-…'
  return `sk-…${secret.slice(-4)}`
}
