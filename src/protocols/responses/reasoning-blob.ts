import type { ReasoningPart, Signed } from '../../canonical/types'
import { isJsonObject, parseJson } from '../../internal/json'

/**
 * The prefix of `encrypted_content` the gateway mints. The digit is the format version: a later
 * format gets a new prefix, and blobs of an unknown version are dropped like any foreign blob.
 */
const prefix = 'gwr1.'

/** Upstream families whose reasoning signatures a blob may carry. */
const signers = new Set(['anthropic', 'gemini', 'openai'])

/**
 * The `encrypted_content` of a reasoning item the gateway answers a Responses client with: the
 * reasoning exactly as the upstream returned it (text, and the signature or redacted data of the
 * family that made it), so that the client's next turn can carry it back and an Anthropic or
 * Gemini tool loop keeps its signed thinking (RESP-RES-04, RESP-REQ-11).
 *
 * Format `gwr1.` + base64url(JSON `{t, s?, r?}`), where `s` and `r` are `{protocol, value}`. It is
 * opaque to clients but not a secret: it holds what the summary shows and a vendor signature that
 * only the vendor can verify. Integrity is the vendor's signature's job — a tampered blob is at
 * worst refused by that vendor — so the gateway keeps no key for it, and blobs stay valid across
 * restarts and instances.
 */
export function mintReasoningBlob(part: ReasoningPart): string {
  const payload: { t: string; s?: Signed; r?: Signed } = { t: part.text }
  if (part.signature !== undefined) payload.s = part.signature
  if (part.redacted !== undefined) payload.r = part.redacted
  return prefix + toBase64Url(new TextEncoder().encode(JSON.stringify(payload)))
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
  const bytes = fromBase64Url(value.slice(prefix.length))
  if (bytes === undefined) return undefined
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
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

/** `undefined` when absent, `null` when present but malformed. */
function readSigned(value: unknown): Signed | undefined | null {
  if (value === undefined) return undefined
  if (!isJsonObject(value)) return null
  const { protocol, value: signature } = value
  if (typeof protocol !== 'string' || !signers.has(protocol) || typeof signature !== 'string')
    return null
  return { protocol: protocol as Signed['protocol'], value: signature }
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}
