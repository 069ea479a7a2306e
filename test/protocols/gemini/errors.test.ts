import { ApiError, GoogleGenAI } from '@google/genai'
import { describe, expect, it } from 'vitest'
import { GatewayError, type GatewayErrorCode } from '../../../src/errors'
import {
  geminiErrorBody,
  geminiErrorToGateway,
  geminiStreamErrorFrame,
  renderGeminiError,
} from '../../../src/protocols/gemini/errors'

describe('Gemini error bodies (checklist §5.1, §5.3)', () => {
  it.each<[GatewayErrorCode, number, string]>([
    ['invalid_request', 400, 'INVALID_ARGUMENT'],
    ['authentication', 401, 'UNAUTHENTICATED'],
    ['permission', 403, 'PERMISSION_DENIED'],
    ['not_found', 404, 'NOT_FOUND'],
    ['model_not_found', 404, 'NOT_FOUND'],
    ['method_not_allowed', 405, 'INVALID_ARGUMENT'],
    ['payload_too_large', 400, 'INVALID_ARGUMENT'],
    ['quota_exceeded', 429, 'RESOURCE_EXHAUSTED'],
    ['rate_limited', 429, 'RESOURCE_EXHAUSTED'],
    ['upstream_error', 503, 'UNAVAILABLE'],
    ['upstream_unreachable', 503, 'UNAVAILABLE'],
    ['upstream_timeout', 504, 'DEADLINE_EXCEEDED'],
    ['overloaded', 503, 'UNAVAILABLE'],
    ['internal', 500, 'INTERNAL'],
  ])('ERR-01: %s → %i %s', (code, status, rpc) => {
    const error = new GatewayError(code, 'Something failed.')
    expect(geminiErrorBody(error)).toEqual({
      error: { code: status, message: 'Something failed.', status: rpc },
    })
  })

  it('maps upstream statuses as Google would: 402 → 429, 500 stays, 529 → 503', () => {
    const status = (value: number) =>
      geminiErrorBody(new GatewayError('upstream_error', 'x', { status: value })).error
    expect(status(402)).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' })
    expect(status(500)).toMatchObject({ code: 500, status: 'INTERNAL' })
    expect(status(529)).toMatchObject({ code: 503, status: 'UNAVAILABLE' })
    expect(status(422)).toMatchObject({ code: 422, status: 'INVALID_ARGUMENT' })
  })

  it('ERR-02: passes a Gemini upstream body through, details included, but no other protocol’s', () => {
    const body = {
      error: {
        code: 429,
        message: 'Quota exceeded.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34s' }],
      },
    }
    const fromGemini = new GatewayError('rate_limited', 'Quota exceeded.', {
      upstream: { status: 429, body, protocol: 'gemini' },
    })
    expect(geminiErrorBody(fromGemini)).toEqual(body)
    const fromOpenAI = new GatewayError('rate_limited', 'Slow down.', {
      upstream: { status: 429, body: { error: { message: 'Slow down.' } }, protocol: 'openai' },
    })
    expect(geminiErrorBody(fromOpenAI)).toEqual({
      error: { code: 429, message: 'Slow down.', status: 'RESOURCE_EXHAUSTED' },
    })
  })

  it('renders a Response whose status is the body’s code, which the SDK throws as ApiError', async () => {
    const response = renderGeminiError(new GatewayError('overloaded', 'Overloaded'))
    expect(response.status).toBe(503)
    expect(response.headers.get('content-type')).toContain('application/json')
    const body: unknown = await response.clone().json()
    expect(body).toEqual({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } })
    const ai = new GoogleGenAI({
      apiKey: 'x',
      httpOptions: { baseUrl: 'http://gemini.test', fetch: async () => response },
    })
    const call = ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })
    await expect(call).rejects.toBeInstanceOf(ApiError)
    await expect(call).rejects.toMatchObject({ status: 503 })
  })

  it('ERR-S-G: the stream error frame is the body as one `data:` event', () => {
    expect(geminiStreamErrorFrame(new GatewayError('internal', 'Boom.'))).toBe(
      'data: {"error":{"code":500,"message":"Boom.","status":"INTERNAL"}}\n\n',
    )
  })

  it('reads Google’s error body back into a gateway error', () => {
    const body = { error: { code: 504, message: 'Deadline expired.', status: 'DEADLINE_EXCEEDED' } }
    expect(geminiErrorToGateway(body)).toMatchObject({
      code: 'upstream_error',
      status: 504,
      message: 'Deadline expired.',
      upstream: { status: 504, body, protocol: 'gemini' },
    })
    expect(geminiErrorToGateway('nonsense')).toMatchObject({ code: 'upstream_error', status: 500 })
    expect(
      geminiErrorToGateway({ error: { code: 200, status: 'RESOURCE_EXHAUSTED' } }),
    ).toMatchObject({ code: 'rate_limited', status: 500 })
  })
})
