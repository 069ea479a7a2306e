import type { ReasoningPart, Signed } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import { textDigest } from '../../internal/text-digest'
import type { ReasoningField } from '../../models/profile'

export type { ReasoningField } from '../../models/profile'

/**
 * Where reasoning from an `openai`-protocol upstream came from: the field it arrived in, the
 * upstream model that wrote it (as a digest) and the digest of its text. It travels as the reasoning's canonical
 * signature (`{protocol: 'openai', value: <JSON>}`) and inside every carrier a client gets, so that
 * the reasoning goes back to that model, in that field, byte for byte (ADR 0018).
 */
export type ReasoningOrigin = {
  field: ReasoningField
  /**
   * `textDigest` of the upstream model name the gateway called (`groups[].models[].upstreamModel`):
   * enough to tell that model again, without showing clients the name behind an alias.
   */
  modelDigest: string
  /** `textDigest` of the reasoning text. */
  digest: string
  /** A `reasoning_details` entry's members besides its text (MiniMax's `type`, `id`, `format`). */
  detail?: Record<string, unknown>
}

/**
 * The most characters one reasoning carrier may have, as a client sends it back: a `gw1.o.`
 * thinking signature, a `gwthink1:` thought signature, a `gwr1.` `encrypted_content`. 4 MiB holds
 * the reasoning of the longest single answer of any model in the profile table (DeepSeek V4's
 * 384K output tokens are about 1.5 MB of text, 2 MB as base64); past it a carrier is refused with
 * 400, and the gateway mints none (docs/translation.md › Thinking in tool loops).
 */
export const maxReasoningCarrierLength = 4 * 1024 * 1024

const fields: ReadonlySet<string> = new Set(['reasoning_content', 'reasoning', 'reasoning_details'])

/** The canonical signature of reasoning an `openai`-protocol upstream returned. */
export function reasoningOriginSignature(
  field: ReasoningField,
  model: string,
  text: string,
  detail?: Record<string, unknown>,
): Signed {
  const value = {
    f: field,
    m: textDigest(model),
    h: textDigest(text),
    ...(detail === undefined ? {} : { d: detail }),
  }
  return { protocol: 'openai', value: JSON.stringify(value) }
}

/** The origin a canonical `openai` signature holds, or `undefined` when it holds none. */
export function readReasoningOrigin(signature: Signed | undefined): ReasoningOrigin | undefined {
  if (signature?.protocol !== 'openai') return undefined
  const parsed = parseJson(signature.value)
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined
  const { f: field, m: modelDigest, h: digest, d: detail } = parsed.value
  if (typeof field !== 'string' || !fields.has(field)) return undefined
  if (!isDigest(modelDigest) || !isDigest(digest)) return undefined
  if (detail !== undefined && !isJsonObject(detail)) return undefined
  return {
    field: field as ReasoningField,
    modelDigest,
    digest,
    ...(detail === undefined ? {} : { detail }),
  }
}

function isDigest(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{16}$/.test(value)
}

/** Whether reasoning of this origin was written by the upstream model named `model`. */
export function writtenBy(origin: ReasoningOrigin, model: string): boolean {
  return origin.modelDigest === textDigest(model)
}

/**
 * Reasoning a client brought back in one of the gateway's carriers, checked: an `openai` origin
 * must parse and its digest match the text. Anything else is a 400 naming the carrier — the
 * reasoning was altered or cut, and sending it on would hand the upstream reasoning it never
 * wrote. Parts without an `openai` signature pass unchanged.
 */
export function checkedCarriedReasoning(part: ReasoningPart, param: string): ReasoningPart {
  if (part.signature?.protocol !== 'openai') return part
  const origin = readReasoningOrigin(part.signature)
  if (origin === undefined || origin.digest !== textDigest(part.text)) throw alteredCarrier(param)
  return part
}

/** The 400 for a carrier the gateway cannot read back. */
export function alteredCarrier(param: string): GatewayError {
  return new GatewayError(
    'invalid_request',
    `\`${param}\` is not reasoning the gateway handed out: it was altered or cut. Send assistant turns back exactly as the gateway answered them.`,
    { param },
  )
}

/** Refuses, with 400, a carrier longer than `maxReasoningCarrierLength`. */
export function checkCarrierLength(carrier: string, param: string): void {
  if (carrier.length <= maxReasoningCarrierLength) return
  throw new GatewayError(
    'invalid_request',
    `\`${param}\` has ${carrier.length} characters; a reasoning carrier may have at most ${maxReasoningCarrierLength}.`,
    { param },
  )
}
