/**
 * The Redis keys of one API key's usage. All of them carry the hash tag `{k:<key id>}`, so every
 * script touches one Cluster slot. The layout version (`usage:v1`) is part of the prefix: a
 * release that changes the layout or the scripts' meaning bumps it, so old and new instances
 * in a rolling deploy never read each other's data.
 */
export const usageLayoutVersion = 'usage:v1'

/**
 * The thirteen keys of the usage scripts, in the order `src/redis/lua/usage-prelude.ts` documents.
 * Keys 11–13 (money budgets) came after the rest, so that an older instance in a rolling deploy,
 * which passes ten, still finds its own keys where they were.
 * Braces and `%` in the key id are percent-encoded, so an id can never end the hash tag early.
 */
export function usageKeys(prefix: string, keyId: string): string[] {
  const tag = `{k:${keyId.replace(/[%{}]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)}}`
  const base = `${prefix}:${usageLayoutVersion}:${tag}`
  return [
    `${base}:lease`,
    `${base}:res`,
    `${base}:done`,
    `${base}:w:rpm`,
    `${base}:w:itpm`,
    `${base}:w:otpm`,
    `${base}:b:day`,
    `${base}:b:month`,
    `${base}:b:life`,
    `${base}:totals`,
    `${base}:m:day`,
    `${base}:m:month`,
    `${base}:m:life`,
  ]
}
