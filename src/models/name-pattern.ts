/**
 * Glob patterns over normalised model names, shared by the model profiles and the price
 * catalogue so that both match a name the same way: `*` is any run of characters, a pattern
 * matches the whole name, and among patterns that match, the one with the most literal characters
 * wins (`gpt-4o-mini*` beats `gpt-4o*`; a dated snapshot or `-latest` alias lands on its family).
 *
 * @module
 */

/** A compiled pattern and its specificity (its literal characters). */
export type NamePattern = { regex: RegExp; specificity: number }

/** Compiles a glob pattern once. */
export function compileNamePattern(pattern: string): NamePattern {
  const escaped = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return { regex: new RegExp(`^${escaped}$`), specificity: pattern.replaceAll('*', '').length }
}
