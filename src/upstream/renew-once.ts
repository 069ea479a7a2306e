import { GatewayError } from '../errors'
import type { CredentialRenewal, PreparedRequest } from './prepared-request'
import { readUpstreamText } from './read-upstream-answer'
import type { ChunkSource, UpstreamAnswer } from './upstream-answer'

/** The most of a refusal's body read to decide whether it refused the credential. */
const maxRefusalBytes = 64 * 1024

/** One send of a call: the request as it went out and what came back. */
export type SentCall<A> = { request: PreparedRequest; answer: A }

/** What the two transports' answers have in common here. */
type Answer = { readonly status: number }

/**
 * Sends a call, and when its answer refuses the credential (see `CredentialRenewal`), renews it
 * and sends the call once more. An answer that is not a refusal of the credential is returned as
 * it came, its body read only when its status was 401 or 403, and then rebuilt from the text.
 */
export async function sendRenewing<A extends Answer>(
  send: () => Promise<SentCall<A>>,
  renewal: CredentialRenewal,
  body: { read(answer: A): Promise<string>; rebuild(answer: A, text: string): A },
): Promise<A> {
  const first = await send()
  const { status } = first.answer
  if (status !== 401 && status !== 403) return first.answer
  const text = await body.read(first.answer)
  if (!renewal.refused(status, text)) return body.rebuild(first.answer, text)
  await renewal.renew(first.request)
  return (await send()).answer
}

/** How a WHATWG `Response`'s refusal is read and rebuilt. */
export const responseBody = {
  read: (response: Response) =>
    readUpstreamText(response.body?.getReader() ?? null, maxRefusalBytes),
  rebuild(response: Response, text: string): Response {
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    headers.delete('content-encoding')
    return new Response(text, { status: response.status, statusText: response.statusText, headers })
  },
}

/** How a transport's direct answer's refusal is read and rebuilt. */
export const answerBody = {
  read: (answer: UpstreamAnswer) =>
    answer.text === undefined
      ? readUpstreamText(answer.body, maxRefusalBytes)
      : answer.text(maxRefusalBytes, refusalTooLarge),
  rebuild: (answer: UpstreamAnswer, text: string): UpstreamAnswer => ({
    status: answer.status,
    ok: answer.ok,
    type: answer.type,
    headers: answer.headers,
    body: textSource(text),
    text: async () => text,
  }),
}

function refusalTooLarge(): GatewayError {
  return new GatewayError(
    'upstream_error',
    `The upstream's refusal is too large: over ${maxRefusalBytes} bytes.`,
  )
}

/** A chunk source that yields `text` once. */
function textSource(text: string): ChunkSource {
  let bytes: Uint8Array | undefined = new TextEncoder().encode(text)
  return {
    async read() {
      const value = bytes
      bytes = undefined
      return value === undefined ? { done: true } : { done: false, value }
    },
    async cancel() {
      bytes = undefined
    },
  }
}
