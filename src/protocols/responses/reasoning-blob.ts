import type { ReasoningPart, Signed } from '../../canonical/types'
import { base64UrlToUtf8, utf8ToBase64Url } from '../../internal/base64'
import { isJsonObject, parseJson } from '../../internal/json'
import {
  alteredCarrier,
  checkCarrierLength,
  checkedCarriedReasoning,
  maxReasoningCarrierLength,
} from '../openai/reasoning-origin'

/**
 * The prefix of `encrypted_content` the gateway mints. The digit is the format version: a later
 * format gets a new prefix, and blobs of an unknown version are dropped like any foreign blob.
 */
const prefix = 'gwr1.'

/** Upstream families whose reasoning signatures a blob may carry. */
const signers = new Set(['anthropic', 'gemini', 'openai', 'converse'])

/**
 * The `encrypted_content` of a reasoning item the gateway answers a Responses client with: the
 * reasoning exactly as the upstream returned it (text, and the signature or redacted data of the
 * family that made it — for an OpenAI-compatible upstream, its origin), so that the client's next
 * turn can carry it back and an Anthropic, Gemini or DeepSeek tool loop keeps its reasoning
 * (ADR 0018).
 *
 * Format `gwr1.` + base64url(JSON `{t, s?, r?}`), where `s` and `r` are `{protocol, value}`. It is
 * opaque to clients but not a secret: it holds what the summary shows and a vendor signature that
 * only the vendor can verify. Integrity is the vendor's signature's job — a tampered blob is at
 * worst refused by that vendor — and, for an OpenAI-compatible upstream's reasoning, the digest in
 * its origin; so the gateway keeps no key for it, and blobs stay valid across restarts and
 * instances. `undefined` when the blob would be longer than `maxReasoningCarrierLength`.
 */
export function mintReasoningBlob(part: ReasoningPart): string | undefined {
  const payload: { t: string; s?: Signed; r?: Signed } = { t: part.text }
  if (part.signature !== undefined) payload.s = part.signature
  if (part.redacted !== undefined) payload.r = part.redacted
  const blob = prefix + utf8ToBase64Url(JSON.stringify(payload))
  return blob.length <= maxReasoningCarrierLength ? blob : undefined
}

/** True for an `encrypted_content` the gateway minted (of any readable version). */
export function isGatewayReasoningBlob(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(prefix)
}

/**
 * The reasoning a gateway blob carries, or `undefined` for anything else: a foreign blob (OpenAI's
 * `gAAAA…`), a truncated or altered one, an unknown version. Callers drop what this refuses
 * before it reaches an upstream that would reject it.
 */
export function readReasoningBlob(value: unknown): ReasoningPart | undefined {
  if (!isGatewayReasoningBlob(value)) return undefined
  const text = base64UrlToUtf8(value.slice(prefix.length))
  if (text === undefined) return undefined
  const parsed = parseJson(text)
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined
  const payload = parsed.value
  if (typeof payload['t'] !== 'string') return undefined
  const part: ReasoningPart = { type: 'reasoning', text: payload['t'] }
  const signature = readSigned(payload['s'])
  const redacted = readSigned(payload['r'])
  if (signature === null || redacted === null) return undefined
  if (signature !== undefined) part.signature = signature
  if (redacted !== undefined) part.redacted = redacted
  return part
}

/**
 * The reasoning of an `encrypted_content` a client sent back: `undefined` for a foreign blob
 * (OpenAI's own); the gateway's, read and checked (an OpenAI-compatible upstream's origin against
 * its text). A gateway blob that does not read back — altered, cut, or longer than the bound — is a
 * 400 at `param`, never dropped in silence: the upstream would then get a turn without the
 * reasoning it needs, and the client no word of why.
 */
export function readReturnedReasoningBlob(
  value: unknown,
  param: string,
): ReasoningPart | undefined {
  if (!isGatewayReasoningBlob(value)) return undefined
  checkCarrierLength(value, param)
  const part = readReasoningBlob(value)
  if (part === undefined) throw alteredCarrier(param)
  return checkedCarriedReasoning(part, param)
}

/** `undefined` when absent, `null` when present but malformed. */
function readSigned(value: unknown): Signed | undefined | null {
  if (value === undefined) return undefined
  if (!isJsonObject(value)) return null
  const { protocol, value: signature } = value
  if (typeof protocol !== 'string' || !signers.has(protocol) || typeof signature !== 'string')
    return null
  return { protocol: protocol as Signed['protocol'], value: signature }
}
