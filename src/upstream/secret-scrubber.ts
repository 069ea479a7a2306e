import { GatewayError } from '../errors'
import { parseJson } from '../internal/json'

/** Replaces every trace of the configured upstream secrets in a text. */
export type SecretScrubber = (text: string) => string

/** What a leaked secret is replaced with. */
export const redacted = '[redacted]'

/**
 * Any run of this many characters of a secret counts as a leak of it. Shorter runs of a random key
 * reveal too little to use, and shorter windows of a key made of words (`my-upstream-key`) would
 * match ordinary words such as `upstream_error` in the messages.
 */
const leakWindow = 12
/** Shorter secrets are placeholders (`none`, `ollama`), matched as whole words only. */
const shortestSecret = 4
/** Characters that hide the middle of a masked key: `sk-abc***wxyz`, `sk-…wxyz`, `sk-••••wxyz`. */
const maskRun = /[*•…]+/
/** A word: the unit that is replaced. Never spans a quote or a backslash, so JSON stays valid. */
const wordPattern = /[^\s"'\\<>()[\]{},;`]+/g
const tokenTail = /[A-Za-z0-9_-]+$/
const tokenHead = /^[A-Za-z0-9_-]+/

/**
 * A scrubber for the secrets an upstream is sent (its API key, secret header values). What counts
 * as a leak, so what is replaced — always the whole word around it, with `[redacted]`:
 * - the secret, or any 12 consecutive characters of it (a quoted prefix, a truncated key);
 * - a masked rendering that shows the secret's first 4 or more characters, or its last 3 or more,
 *   around `*`, `•` or `…` (OpenAI's "Incorrect API key provided: sk-abc1***…wxyz");
 * - for a secret shorter than 12 characters, a word that is the secret itself.
 *
 * Secrets shorter than 4 characters are ignored. Scrubbing runs only on error paths (upstream
 * error bodies and mid-stream error frames), never on a healthy answer.
 */
export function createSecretScrubber(secrets: readonly string[]): SecretScrubber {
  const long = new Set<string>()
  const short = new Set<string>()
  for (const secret of new Set(secrets)) {
    if (secret.length < shortestSecret) continue
    if (secret.length < leakWindow) short.add(secret)
    else long.add(secret)
  }
  if (long.size === 0 && short.size === 0) return (text) => text
  const windows = new Set<string>()
  for (const secret of long) {
    for (let start = 0; start + leakWindow <= secret.length; start += 1) {
      windows.add(secret.slice(start, start + leakWindow))
    }
  }
  const leaks = (word: string): boolean => {
    if (short.has(word) || short.has(word.replace(/[.:!?]+$/, ''))) return true
    for (let start = 0; start + leakWindow <= word.length; start += 1) {
      if (windows.has(word.slice(start, start + leakWindow))) return true
    }
    return maskRun.test(word) && showsMaskedEnds(word, long)
  }
  return (text) =>
    text.replace(wordPattern, (word, offset: number) => {
      if (!leaks(word)) return word
      // A word right after a backslash starts with the rest of a JSON escape: keep that part.
      if (offset > 0 && text[offset - 1] === '\\') {
        const escapeLength = word.startsWith('u') ? 5 : 1
        return word.slice(0, escapeLength) + redacted
      }
      return redacted
    })
}

/** True when a masked word shows a secret's first 4+ or last 3+ characters beside the mask. */
function showsMaskedEnds(word: string, secrets: ReadonlySet<string>): boolean {
  const parts = word.split(maskRun)
  const head = tokenTail.exec(parts[0] ?? '')?.[0] ?? ''
  const tail = tokenHead.exec(parts.at(-1) ?? '')?.[0] ?? ''
  for (const secret of secrets) {
    if (head.length >= 4 && secret.startsWith(head)) return true
    if (tail.length >= 3 && secret.endsWith(tail)) return true
  }
  return false
}

/**
 * The same error with every secret scrubbed from its message and its upstream body (which a
 * same-protocol client receives verbatim). The original is dropped as `cause`, since it still
 * holds the secret; an error with nothing to scrub is returned as it is.
 */
export function scrubGatewayError(error: GatewayError, scrub: SecretScrubber): GatewayError {
  const message = scrub(error.message)
  const body = scrubBody(error.upstream?.body, scrub)
  if (message === error.message && body === error.upstream?.body) return error
  return new GatewayError(error.code, message, {
    status: error.status,
    ...(error.param === undefined ? {} : { param: error.param }),
    ...(error.upstream === undefined ? {} : { upstream: { ...error.upstream, body } }),
    ...(error.headers === undefined ? {} : { headers: error.headers }),
  })
}

function scrubBody(body: unknown, scrub: SecretScrubber): unknown {
  if (body === undefined || body === null) return body
  if (typeof body === 'string') return scrub(body)
  const text = JSON.stringify(body)
  const clean = scrub(text)
  if (clean === text) return body
  const parsed = parseJson(clean)
  return parsed.ok ? parsed.value : clean
}

/** Anything that may declare secrets: an upstream provider. */
type HasSecrets = { readonly secrets?: readonly string[] | undefined }

/**
 * The secrets every upstream of these groups declares: a gateway scrubs all of them from every
 * upstream's errors, so that a misrouted or shared credential is caught too.
 */
export function secretsOf(groups: readonly { upstreams: readonly HasSecrets[] }[]): string[] {
  return groups.flatMap((group) => group.upstreams.flatMap((upstream) => upstream.secrets ?? []))
}

/**
 * A scrubber per provider, built on first use (error paths only) and kept while the provider's
 * `secrets` stay the same array: its own `secrets` (a custom registry's providers are known only
 * at call time; a provider whose credentials change while it runs gives a new array then) and the
 * `configured` ones.
 */
export function createScrubbers(
  configured: readonly string[],
): (provider: HasSecrets) => SecretScrubber {
  const scrubbers = new WeakMap<
    HasSecrets,
    { secrets: readonly string[] | undefined; scrubber: SecretScrubber }
  >()
  return (provider) => {
    const secrets = provider.secrets
    let kept = scrubbers.get(provider)
    if (kept === undefined || kept.secrets !== secrets) {
      kept = { secrets, scrubber: createSecretScrubber([...configured, ...(secrets ?? [])]) }
      scrubbers.set(provider, kept)
    }
    return kept.scrubber
  }
}
