import { describe, expect, it } from 'vitest'
import { buildGateway, gatewayUrl, keys } from '../helpers/gateway'

/** A request as a runtime might hand it over with a URL that does not parse. */
function withUrl(url: string, init: RequestInit = {}): Request {
  const request = new Request(`${gatewayUrl}/`, init)
  Object.defineProperty(request, 'url', { value: url })
  return request
}

const post = (headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { authorization: `Bearer ${keys.main}`, ...headers },
  body: '{}',
})

describe('a request URL that does not parse', () => {
  it.each([
    [
      'a relative URL',
      '/v1/chat/completions',
      post(),
      { error: { type: 'invalid_request_error' } },
    ],
    [
      'a malformed host on the messages route',
      'http://bad host/v1/messages?beta=true',
      post(),
      { type: 'error', error: { type: 'invalid_request_error' } },
    ],
    [
      'a malformed host on the Responses route',
      'http://x y/v1/responses',
      post(),
      { error: { type: 'invalid_request_error' } },
    ],
    [
      'a malformed host on a Gemini route',
      'http://[::1/v1beta/models/m:streamGenerateContent?alt=sse',
      post(),
      { error: { code: 400, status: 'INVALID_ARGUMENT' } },
    ],
    [
      'an unknown route with an anthropic-version header',
      'http://a b/elsewhere',
      post({ 'anthropic-version': '2023-06-01' }),
      { type: 'error', error: { type: 'invalid_request_error' } },
    ],
  ])('gets 400 in the route shape for %s, with an event', async (_, url, init, body) => {
    const { gateway, events } = buildGateway()
    const response = await gateway(withUrl(url, init))
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject(body)
    expect(response.headers.get('x-request-id')).toBe('req_test_1')
    expect(events).toEqual([
      expect.objectContaining({
        requestId: 'req_test_1',
        status: 400,
        outcome: 'error',
        error: {
          code: 'invalid_request',
          message: 'The request URL is malformed: check the Host header.',
        },
      }),
    ])
  })

  it('routes by the path below basePath', async () => {
    const { gateway, events } = buildGateway({ basePath: '/llm' })
    const response = await gateway(withUrl('http://bad host/llm/v1/messages', post()))
    expect(await response.json()).toMatchObject({ type: 'error' })
    expect(events[0]).toMatchObject({ route: 'messages', path: '/llm/v1/messages' })
  })
})
