/**
 * What InvokeModel refuses in a Claude body before Anthropic's own rules apply, with Bedrock's
 * messages: the `anthropic_version` it requires, the fields it does not take (`model`, `stream`:
 * the path says them), `max_tokens` required, `anthropic_beta` a list of names, URL image and
 * document sources (Bedrock takes base64 only), and betas sent as a header instead of in the body.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html
 */
export function checkBedrockClaudeBody(
  body: Record<string, any>,
  headers: Record<string, string>,
): { message: string } | undefined {
  const malformed = (detail: string) => ({
    message: `Malformed input request: ${detail}, please reformat your input and try again.`,
  })
  if (body['anthropic_version'] === undefined)
    return malformed('#: required key [anthropic_version] not found')
  if (body['anthropic_version'] !== 'bedrock-2023-05-31') return { message: 'Invalid API version' }
  for (const key of ['model', 'stream']) {
    if (key in body) return malformed(`#: extraneous key [${key}] is not permitted`)
  }
  if (body['max_tokens'] === undefined) return malformed('#: required key [max_tokens] not found')
  if (!Number.isInteger(body['max_tokens']) || body['max_tokens'] < 1) {
    return malformed('#/max_tokens: expected minimum: 1')
  }
  const betas = body['anthropic_beta']
  if (
    betas !== undefined &&
    (!Array.isArray(betas) || betas.some((beta) => typeof beta !== 'string'))
  ) {
    return malformed('#/anthropic_beta: expected type: JSONArray')
  }
  if (headers['anthropic-beta'] !== undefined) {
    return { message: 'anthropic-beta must be sent in the body as anthropic_beta on Bedrock.' }
  }
  const messages = body['messages']
  if (!Array.isArray(messages) || messages.length === 0)
    return malformed('#/messages: expected minimum item count: 1')
  for (const [index, message] of messages.entries()) {
    if (message?.['role'] !== 'user' && message?.['role'] !== 'assistant') {
      return malformed(
        `#/messages/${index}/role: ${String(message?.['role'])} is not a valid enum value`,
      )
    }
    const content = Array.isArray(message['content']) ? message['content'] : []
    for (const [at, block] of content.entries()) {
      const nested =
        block?.['type'] === 'tool_result' && Array.isArray(block['content'])
          ? block['content']
          : [block]
      for (const part of nested) {
        if (
          (part?.['type'] === 'image' || part?.['type'] === 'document') &&
          part['source']?.['type'] !== 'base64' &&
          part['source']?.['type'] !== 'text'
        ) {
          return {
            message: `messages.${index}.content.${at}.${String(part['type'])}.source: Input tag '${String(part['source']?.['type'])}' found using 'type' does not match any of the expected tags: 'base64'`,
          }
        }
      }
    }
  }
  return undefined
}

/**
 * The model name behind a Bedrock id: the inference profile's geographic prefix, the vendor and
 * the version dropped (`us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929`),
 * or with `keepVersion` only the prefix (the foundation model id CountTokens takes).
 */
export function foundationOf(modelId: string, options: { keepVersion?: boolean } = {}): string {
  const id = modelId
    .replace(/^arn:[^/]+\//, '')
    .replace(/^(?:us|us-gov|eu|apac|jp|au|ca|global)\.(?=[a-z0-9-]+\.)/, '')
  if (options.keepVersion === true) return id
  return id.replace(/^[a-z0-9-]+\./, '').replace(/-v\d+(?::\d+)?$/, '')
}
