import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import type { ProtocolName } from '../../protocols/protocol-name'

/**
 * AWS's error codes as Bedrock Runtime sends them (the `x-amzn-errortype` header of an HTTP error,
 * the `:exception-type` header of an exception frame), and what the gateway makes of them.
 *
 * @module
 */

/** The HTTP status of each Bedrock Runtime exception, by its lower-case name. */
const exceptionStatus = new Map<string, number>([
  ['throttlingexception', 429],
  ['modelstreamerrorexception', 424],
  ['modeltimeoutexception', 408],
  ['serviceunavailableexception', 503],
  ['internalserverexception', 500],
  ['validationexception', 400],
  ['modelnotreadyexception', 429],
  ['modelerrorexception', 424],
  ['servicequotaexceededexception', 400],
  ['accessdeniedexception', 403],
  ['resourcenotfoundexception', 404],
])

/**
 * An AWS error code without its decorations, as the AWS SDKs cut it: the `ns#` prefix and the
 * `:http://…` suffix (`com.amazon.coral#ThrottlingException:http://…` → `ThrottlingException`).
 */
export function awsErrorCode(raw: string): string {
  const name = raw.split(':')[0]!.trim()
  return name.slice(name.lastIndexOf('#') + 1)
}

/** The status an exception's name maps to (`throttlingException` → 429), or `undefined`. */
export function exceptionStatusOf(name: string): number | undefined {
  const key = name.toLowerCase()
  return exceptionStatus.get(key.endsWith('exception') ? key : `${key}exception`)
}

/**
 * The failure an exception frame in a Bedrock stream stands for: its mapped status (429 for a
 * throttling exception, 424, 408, 503, 500, 400), so that before the first byte it is retried,
 * rests the upstream and fails over as the same HTTP error would; after it, the relay writes it
 * as the client protocol's error event. An unknown exception is the upstream's failure (502).
 * A refusal of the credentials (403) is the gateway's own credentials refused, as for an HTTP 403.
 */
export function streamExceptionError(
  name: string,
  message: string,
  protocol: ProtocolName,
): GatewayError {
  const status = exceptionStatusOf(name) ?? 502
  const text = `Bedrock ${name}: ${message || 'the stream failed.'}`
  if (status === 401 || status === 403) {
    return new GatewayError(
      'upstream_error',
      `The upstream refused the gateway's credentials (HTTP ${status}).`,
      { status: 502, upstream: { status } },
    )
  }
  const body = familyErrorBody(protocol, status, text)
  const upstream = { status, body, protocol }
  if (status === 429) return new GatewayError('rate_limited', text, { upstream })
  if (status === 408) return new GatewayError('upstream_timeout', text, { status, upstream })
  return new GatewayError('upstream_error', text, { status, upstream })
}

/** Anthropic's error `type` for a status Bedrock answers with. */
function anthropicTypeOf(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error'
    case 401:
      return 'authentication_error'
    case 403:
      return 'permission_error'
    case 404:
      return 'not_found_error'
    case 413:
      return 'request_too_large'
    case 429:
      return 'rate_limit_error'
    case 529:
      return 'overloaded_error'
    default:
      return status >= 500 || status === 408 || status === 424
        ? 'api_error'
        : 'invalid_request_error'
  }
}

/**
 * An error body in the group's family shape: Anthropic's `{"type":"error","error":{…}}` for a
 * Claude (`anthropic`) group; AWS's own `{"message"}` otherwise (the Converse family's shape).
 */
function familyErrorBody(protocol: ProtocolName, status: number, message: string): unknown {
  if (protocol === 'anthropic') {
    return { type: 'error', error: { type: anthropicTypeOf(status), message } }
  }
  return { message }
}

/**
 * Bedrock's HTTP error body (`{"message"}` or `{"Message"}`, with the error code the answer's
 * `x-amzn-errortype` header gave, kept as `type` by `readBedrockAnswer`) in the group's family
 * shape: the code leads the message, so the client learns what AWS said
 * (`ThrottlingException: Too many requests…`).
 */
export function normaliseBedrockError(
  body: unknown,
  status: number,
  protocol: ProtocolName,
): unknown {
  const fields = isJsonObject(body) ? body : {}
  const said = fields['message'] ?? fields['Message']
  const message =
    typeof said === 'string' ? said : typeof body === 'string' ? body.slice(0, 1000) : ''
  const code = typeof fields['type'] === 'string' ? fields['type'] : undefined
  const text =
    code === undefined
      ? message || `Bedrock answered HTTP ${status}.`
      : `${code}: ${message || 'no message'}`
  return familyErrorBody(protocol, status, text)
}
