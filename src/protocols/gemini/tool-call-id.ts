/**
 * Gemini 3 rejects a replayed function call whose `thoughtSignature` is missing, yet OpenAI and
 * Anthropic clients echo nothing of a tool call but its id. So the signature travels inside the id
 * (TOOL-H-09) and needs no server-side state.
 *
 * Format, all within Anthropic's tool id pattern `^[a-zA-Z0-9_-]+$`:
 * - `gsig_<n>_<sig>_<fallback>` when the signature is canonical padded base64 (what Google sends):
 *   `<sig>` is its base64url form (`+`→`-`, `/`→`_`, no `=`) and `<n>` its length in decimal.
 *   The length is needed because base64url itself uses `_`, so no separator could end it.
 * - `gsigx_<n>_<sig>_<fallback>` for any other signature text: `<sig>` is base64url of its UTF-8
 *   bytes, so the round trip stays byte-exact whatever the text.
 * - the bare fallback id when there is no signature.
 *
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */

const COMPACT = 'gsig_'
const UTF8 = 'gsigx_'
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const BASE64URL = /^[A-Za-z0-9_-]*$/

/**
 * The tool-call id a client sees for a Gemini function call: `fallbackId` (the call's own id or a
 * generated one, which should itself match `^[a-zA-Z0-9_-]+$`) with the signature folded in.
 *
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 * @example
 * encodeGeminiToolCallId('CiQB+/x=', 'call_1') // 'gsig_7_CiQB-_x_call_1'
 */
export function encodeGeminiToolCallId(signature: string | undefined, fallbackId: string): string {
  if (signature === undefined || signature === '') return fallbackId
  if (CANONICAL_BASE64.test(signature)) {
    const packed = signature.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
    return `${COMPACT}${packed.length}_${packed}_${fallbackId}`
  }
  const packed = bytesToBase64Url(new TextEncoder().encode(signature))
  return `${UTF8}${packed.length}_${packed}_${fallbackId}`
}

/**
 * Recovers the signature and the original id from an id made by `encodeGeminiToolCallId`. Any
 * other id (one a client or another protocol minted) yields no signature and itself as `id`.
 *
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export function decodeGeminiToolCallId(id: string): { signature?: string; id: string } {
  const compact = id.startsWith(COMPACT)
  if (!compact && !id.startsWith(UTF8)) return { id }
  const afterPrefix = compact ? COMPACT.length : UTF8.length
  const match = /^(\d{1,6})_/.exec(id.slice(afterPrefix))
  if (match === null) return { id }
  const start = afterPrefix + match[0].length
  const packed = id.slice(start, start + Number(match[1]))
  if (packed.length !== Number(match[1]) || !BASE64URL.test(packed)) return { id }
  if (id[start + packed.length] !== '_') return { id }
  const rest = id.slice(start + packed.length + 1)
  if (compact) {
    if (packed.length % 4 === 1) return { id }
    const base64 = packed.replaceAll('-', '+').replaceAll('_', '/')
    return { signature: base64 + '='.repeat((4 - (base64.length % 4)) % 4), id: rest }
  }
  const bytes = base64UrlToBytes(packed)
  if (bytes === undefined) return { id }
  return { signature: new TextDecoder().decode(bytes), id: rest }
}

function bytesToBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function base64UrlToBytes(packed: string): Uint8Array | undefined {
  if (packed.length % 4 === 1) return undefined
  const binary = atob(packed.replaceAll('-', '+').replaceAll('_', '/'))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}
