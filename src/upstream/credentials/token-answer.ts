import { isJsonObject, parseJson } from '../../internal/json'
import { readUpstreamText } from '../read-upstream-answer'

/** The most of a token endpoint's answer read: a token is a few KiB; a larger answer is refused. */
const maxTokenAnswerBytes = 64 * 1024

/** An OAuth token endpoint's answer, read. */
export type TokenAnswer = {
  /**
   * The answer's JSON object: the token's fields, or a refusal's (`error`, `error_description`);
   * empty when the answer is not a JSON object (an HTML error page), which its status then tells.
   */
  readonly body: Record<string, unknown>
  /** The `access_token` of a 2xx answer; `undefined` when it is not one or gives none. */
  readonly token: string | undefined
}

/**
 * Reads the answer of an OAuth token endpoint (Google's, Entra ID's, a metadata server, a managed
 * identity endpoint), at most `maxTokenAnswerBytes` of it: a larger one is the upstream's failure,
 * a 502 (`readUpstreamText`). What a refusal or a missing token means is the caller's to say, in
 * its own words, never quoting what was sent.
 */
export async function readTokenAnswer(response: Response): Promise<TokenAnswer> {
  const text = await readUpstreamText(response.body?.getReader() ?? null, maxTokenAnswerBytes)
  const parsed = parseJson(text)
  const body = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
  const token = body['access_token']
  return {
    body,
    token: response.ok && typeof token === 'string' && token !== '' ? token : undefined,
  }
}
