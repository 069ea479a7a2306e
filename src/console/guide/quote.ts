/**
 * Quoting for the call guide's snippets: a string as a literal of each language the guide shows.
 *
 * @module
 */

/** A TypeScript string literal (single quotes, as the project's own code). */
export const js = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
/** A Python string literal. */
export const py = (text: string) => JSON.stringify(text)
/** A TOML basic string. */
export const toml = (text: string) => JSON.stringify(text)
/** A word for a POSIX shell: single-quoted unless it is plainly safe. */
export const sh = (text: string) =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`
