import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../../src/errors'
import { renderResponsesError, responsesFailure } from '../../../src/protocols/responses/errors'

const body = async (error: GatewayError) => {
  const response = renderResponsesError(error)
  return {
    status: response.status,
    body: (await response.json()) as { error: Record<string, unknown> },
  }
}

describe('Responses errors', () => {
  it('RESP-ERR-01: an overloaded upstream is 503 server_is_overloaded (Anthropic says 529)', async () => {
    expect(await body(new GatewayError('overloaded', 'Overloaded', { status: 529 }))).toEqual({
      status: 503,
      body: {
        error: {
          message: 'Overloaded',
          type: 'server_error',
          param: null,
          code: 'server_is_overloaded',
        },
      },
    })
  })

  it('RESP-ERR-01: a rate limit says how long to wait, in the words Codex reads', async () => {
    const limited = new GatewayError('rate_limited', 'Number of requests exceeded', {
      headers: { 'retry-after': '12' },
    })
    expect((await body(limited)).body.error).toEqual({
      message: 'Number of requests exceeded. Please try again in 12s.',
      type: 'rate_limit_error',
      param: null,
      code: 'rate_limit_exceeded',
    })
    expect(
      (await body(new GatewayError('quota_exceeded', 'Quota used up.'))).body.error['code'],
    ).toBe('insufficient_quota')
  })

  it('RESP-ERR-02: every upstream family context overflow is context_length_exceeded', async () => {
    const anthropic = new GatewayError(
      'upstream_error',
      'prompt is too long: 210000 tokens > 200000 maximum',
      {
        status: 400,
        upstream: {
          status: 400,
          protocol: 'anthropic',
          body: {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'prompt is too long' },
          },
        },
      },
    )
    const gemini = new GatewayError(
      'upstream_error',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      {
        status: 400,
        upstream: { status: 400, protocol: 'gemini' },
      },
    )
    for (const error of [anthropic, gemini]) {
      expect(await body(error)).toMatchObject({
        status: 400,
        body: { error: { code: 'context_length_exceeded', type: 'invalid_request_error' } },
      })
      expect(responsesFailure(error).code).toBe('context_length_exceeded')
    }
  })

  it('ERR-02: an OpenAI upstream error body is passed through as written', async () => {
    const upstream = {
      error: {
        message: 'Invalid encrypted content.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'invalid_encrypted_content',
      },
    }
    const error = new GatewayError('upstream_error', 'x', {
      status: 400,
      upstream: { status: 400, protocol: 'responses', body: upstream },
    })
    expect(await body(error)).toEqual({ status: 400, body: upstream })
  })

  it('RESP-ERR-03: failures clients do not act on are server_error, which Codex retries', () => {
    expect(responsesFailure(new GatewayError('upstream_timeout', 'slow'))).toEqual({
      code: 'server_error',
      message: 'slow',
    })
  })
})
