import type { MeteredSubjectKind } from '../usage/usage-meter'

/**
 * The Redis keys of the usage meter. A key's thirteen keys carry the hash tag `{k:<key id>}`, as
 * they have since the meter was written; an end user of a key lives under its key's tag, a team
 * under `{t:<team id>}`, the organisation under `{o:<id>}`. The layout version (`usage:v1`) is
 * part of the prefix: a release that changes the layout or the scripts' meaning bumps it, so old
 * and new instances in a rolling deploy never read each other's data. Subjects added no key to a
 * key's layout and changed none, so the version stays.
 */
export const usageLayoutVersion = 'usage:v1'

/** What a subject's keys are built from: its kind and id, and the key it is charged with. */
export type SubjectKeyParts = { kind: MeteredSubjectKind; id: string; keyId: string }

// Braces end a hash tag and `%` is the escape; `:` separates a tag's parts, so end-user and team
// ids cannot make one subject's key look like another's.
const encode = (id: string, pattern: RegExp) =>
  id.replace(pattern, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
const tagChars = /[%{}]/g
const partChars = /[%{}:]/g

/**
 * The hash tag a subject's keys carry: every key of one script call shares it on Redis Cluster.
 * A key's id keeps the encoding it always had (braces and `%`), so counters survive upgrades.
 */
export function subjectTag(subject: SubjectKeyParts): string {
  switch (subject.kind) {
    case 'key':
    case 'end-user':
      return `k:${encode(subject.keyId, tagChars)}`
    case 'team':
      return `t:${encode(subject.id, partChars)}`
    case 'organisation':
      return `o:${encode(subject.id, partChars)}`
    default: {
      const unknown: never = subject.kind
      throw new Error(`Unknown metered subject ${String(unknown)}`)
    }
  }
}

/**
 * The thirteen keys of one subject (a key by its id alone), appended to `into`, in the order `src/redis/lua/usage-prelude.ts` documents. Keys
 * 11–13 (money budgets) came after the rest, so that an older instance in a rolling deploy, which
 * passes ten, still finds its own keys where they were.
 */
export function usageKeys(
  prefix: string,
  subject: string | SubjectKeyParts,
  into: string[] = [],
): string[] {
  if (typeof subject === 'string') subject = { kind: 'key', id: subject, keyId: subject }
  let base = `${prefix}:${usageLayoutVersion}:{${subjectTag(subject)}}`
  if (subject.kind === 'end-user') base += `:u:${encode(subject.id, partChars)}`
  into.push(
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
  )
  return into
}
