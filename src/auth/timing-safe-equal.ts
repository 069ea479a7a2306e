/**
 * Compares two strings in time that depends only on their length, so that a caller cannot learn
 * how many leading characters matched. Both sides are SHA-256 hex digests here, so the lengths are
 * public and equal.
 */
export function timingSafeEqual(left: string, right: string): boolean {
  if (left.length !== right.length) return false
  let difference = 0
  for (let index = 0; index < left.length; index += 1) {
    difference |= left.charCodeAt(index) ^ right.charCodeAt(index)
  }
  return difference === 0
}
