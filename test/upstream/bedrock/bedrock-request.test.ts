import { describe, expect, it } from 'vitest'
import { prepareInvokeBody } from '../../../src/upstream/bedrock/anthropic-body'
import { awsErrorCode, normaliseBedrockError } from '../../../src/upstream/bedrock/bedrock-errors'
import type { UpstreamCall } from '../../../src/upstream/provider'

/** A prepared request of `body` with `headers`, for the call of `operation`. */
function prepare(body: object, headers: Record<string, string>, operation = 'messages') {
  const request = {
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/x/invoke',
    method: 'POST',
    headers: Object.assign(Object.create(null) as Record<string, string>, headers),
    body: JSON.stringify(body),
  }
  const call = { operation, stream: false } as UpstreamCall
  const prepared = prepareInvokeBody(request, call)
  return { body: JSON.parse(prepared.body) as Record<string, any>, headers: prepared.headers }
}

describe('the InvokeModel body of an Anthropic call', () => {
  it('adds anthropic_version, drops model and stream, and merges the beta header into anthropic_beta once', () => {
    const { body, headers } = prepare(
      {
        model: 'claude',
        stream: true,
        max_tokens: 10,
        anthropic_beta: ['a-1'],
        messages: [{ role: 'user', content: 'Hi' }],
        metadata: { user_id: 'u' },
      },
      { 'anthropic-beta': ' a-1 , b-2,', 'anthropic-version': '2023-06-01', traceparent: 't' },
    )
    expect(body).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 10,
      anthropic_beta: ['a-1', 'b-2'],
      messages: [{ role: 'user', content: 'Hi' }],
      metadata: { user_id: 'u' },
    })
    expect({ ...headers }).toEqual({ traceparent: 't' })
  })

  it("makes a count's CountTokens body: the InvokeModel body in base64, with a max_tokens", () => {
    const { body } = prepare(
      { model: 'claude', messages: [{ role: 'user', content: 'Zürich' }] },
      {},
      'count-tokens',
    )
    const invoke = JSON.parse(
      Buffer.from(body['input']['invokeModel']['body'], 'base64').toString('utf8'),
    )
    expect(invoke).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      messages: [{ role: 'user', content: 'Zürich' }],
      max_tokens: 1,
    })
  })
})

describe("Bedrock's errors", () => {
  it('cuts the decorations of an error code', () => {
    expect(
      awsErrorCode('ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/'),
    ).toBe('ThrottlingException')
    expect(awsErrorCode('com.amazon.coral.service#AccessDeniedException')).toBe(
      'AccessDeniedException',
    )
  })

  it("puts {message} or {Message} in Anthropic's shape for a Claude group, and keeps AWS's for Converse", () => {
    expect(
      normaliseBedrockError(
        { Message: 'Invalid API Key format', type: 'UnrecognizedClientException' },
        403,
        'anthropic',
      ),
    ).toEqual({
      type: 'error',
      error: {
        type: 'permission_error',
        message: 'UnrecognizedClientException: Invalid API Key format',
      },
    })
    expect(normaliseBedrockError({ message: 'Too many requests' }, 429, 'anthropic')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Too many requests' },
    })
    expect(normaliseBedrockError('<html>Bad gateway</html>', 502, 'anthropic')).toMatchObject({
      error: { type: 'api_error', message: '<html>Bad gateway</html>' },
    })
    expect(
      normaliseBedrockError({ message: 'Bad input', type: 'ValidationException' }, 400, 'openai'),
    ).toEqual({ message: 'ValidationException: Bad input' })
  })
})
