import { utf8ToBase64 } from '../../internal/base64'
import { isJsonObject, parseJson } from '../../internal/json'
import type { PreparedRequest } from '../prepared-request'
import type { UpstreamCall } from '../provider'

/** The `anthropic_version` InvokeModel requires of a Claude body. */
export const bedrockAnthropicVersion = 'bedrock-2023-05-31'

/**
 * The `max_tokens` a CountTokens body gets when the client's count request has none: InvokeModel
 * refuses a Claude body without it, and the count does not depend on it.
 */
const countMaxTokens = 1

/**
 * Rewrites an Anthropic messages call as InvokeModel wants it. Bedrock requires this even on
 * passthrough, where the gateway otherwise sends the client's body as it came: the body gets
 * `anthropic_version: "bedrock-2023-05-31"`, loses `model` (it is in the path) and `stream` (the
 * path says it), and takes the `anthropic-beta` header's values as `anthropic_beta` (Bedrock reads
 * betas only there). The `anthropic-*` headers are then dropped: Bedrock ignores them, and
 * nothing the client sent is sent beside a signature. Everything else is kept as it is.
 *
 * A count (`count-tokens`) becomes CountTokens' body: the InvokeModel body (with a `max_tokens`
 * when the count request had none), base64-encoded in `{"input":{"invokeModel":{"body"}}}`.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html
 */
export function prepareInvokeBody(request: PreparedRequest, call: UpstreamCall): PreparedRequest {
  const headers = request.headers
  const parsed = parseJson(request.body)
  // Not an object: Bedrock answers it with its own validation error.
  if (!parsed.ok || !isJsonObject(parsed.value)) return request
  const { model: _model, stream: _stream, ...rest } = parsed.value
  const betas = betasOf(rest['anthropic_beta'], headers['anthropic-beta'])
  // Bedrock's version, whatever the client's body said: Bedrock refuses the direct API's.
  const invoke: Record<string, unknown> = { ...rest, anthropic_version: bedrockAnthropicVersion }
  if (betas.length > 0) invoke['anthropic_beta'] = betas
  delete headers['anthropic-beta'] // lookup-safe: a prototype-less record
  delete headers['anthropic-version'] // lookup-safe: a prototype-less record
  if (call.operation === 'count-tokens') {
    invoke['max_tokens'] ??= countMaxTokens
    const body = { input: { invokeModel: { body: utf8ToBase64(JSON.stringify(invoke)) } } }
    return { ...request, body: JSON.stringify(body) }
  }
  return { ...request, body: JSON.stringify(invoke) }
}

/** The betas of the body and of the header (comma-separated), each once, in order. */
function betasOf(inBody: unknown, header: string | undefined): string[] {
  const betas = new Set<string>()
  if (Array.isArray(inBody))
    for (const beta of inBody) if (typeof beta === 'string') betas.add(beta)
  for (const part of (header ?? '').split(',')) {
    const beta = part.trim()
    if (beta !== '') betas.add(beta)
  }
  return [...betas]
}
