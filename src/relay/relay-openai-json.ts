import { findTopLevelMembers } from '../internal/json-members'
import { parseJson } from '../internal/json'
import { readTextWithLimit } from '../http/read-body'
import { readOpenAIUsage } from '../protocols/openai/usage'
import type { TokenUsage } from '../usage/usage-meter'

/** A relayed JSON answer, with the usage read from it. */
export type RelayedJson = { response: Response; usage: TokenUsage | undefined }

/**
 * Relays a successful non-stream chat completion. The upstream's text goes back unchanged; only
 * its `usage` member is located and parsed, so the body is not decoded into objects and encoded
 * again.
 */
export async function relayOpenAIJson(upstream: Response, maxBytes: number): Promise<RelayedJson> {
  const text = await readTextWithLimit(upstream.body, maxBytes)
  const span = findTopLevelMembers(text)?.members.get('usage')
  const parsed =
    span === undefined ? undefined : parseJson(text.slice(span.valueStart, span.valueEnd))
  const usage = parsed?.ok === true ? readOpenAIUsage(parsed.value) : undefined
  const response = new Response(text, {
    status: upstream.status,
    headers: { 'content-type': upstream.headers.get('content-type') ?? 'application/json' },
  })
  return { response, usage }
}
