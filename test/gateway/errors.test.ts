import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildGateway, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import { chatStreamFrames, controlledStream, createMockUpstream } from '../helpers/upstream'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => upstream.server.resetHandlers())
afterAll(() => upstream.server.close())

const hello = [{ role: 'user' as const, content: 'Hello' }]

/** Runs a call and returns the SDK error it throws. */
async function sdkError(
  call: () => Promise<unknown>,
): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call()
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error
    throw error
  }
  throw new Error('The call did not fail.')
}

describe('authentication errors', () => {
  it.each([
    ['a missing key', undefined, /Missing API key/],
    ['a malformed key', 'pk-not-a-gateway-key-0000000000', /keys start with `sk-`/],
    ['an unknown key', 'sk-unknown-0123456789abcdefABCDEF', /Invalid API key/],
    ['a disabled key', keys.disabled, /disabled/],
    ['an expired key', keys.expired, /expired/],
  ])('answers %s with 401 in OpenAI shape', async (_, key, message) => {
    const { gateway } = buildGateway()
    const client = new OpenAI({
      apiKey: key ?? 'placeholder',
      baseURL: `${gatewayUrl}/v1`,
      maxRetries: 0,
      fetch: async (input, init) => {
        const request = new Request(input, init)
        if (key === undefined) request.headers.delete('authorization')
        return gateway(request)
      },
    })
    const error = await sdkError(() =>
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(error.status).toBe(401)
    expect(error.code).toBe('invalid_api_key')
    expect(error.message).toMatch(message)
    expect(upstream.calls).toHaveLength(0)
  })
})

describe('request validation errors', () => {
  it.each([
    ['messages', { model: 'gpt-4o-mini', messages: [] }, 'messages'],
    ['temperature', { model: 'gpt-4o-mini', messages: hello, temperature: 2.5 }, 'temperature'],
    ['max_tokens', { model: 'gpt-4o-mini', messages: hello, max_tokens: 0 }, 'max_tokens'],
    ['stream', { model: 'gpt-4o-mini', messages: hello, stream: 'yes' }, 'stream'],
    ['model', { messages: hello }, 'model'],
    [
      'a message role',
      { model: 'gpt-4o-mini', messages: [{ role: 'robot', content: 'x' }] },
      'messages[0].role',
    ],
  ])('answers a bad %s with 400 naming the field', async (_, body, param) => {
    const { gateway } = buildGateway()
    const error = await sdkError(() => openAIClient(gateway).chat.completions.create(body as never))
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.param).toBe(param)
    expect(error.message).toContain(`\`${param}\``)
    expect(upstream.calls).toHaveLength(0)
  })

  it('accepts every OpenAI role and array content', async () => {
    const { gateway } = buildGateway()
    const completion = await openAIClient(gateway).chat.completions.create({
      model: 'demo-echo',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'system', content: [{ type: 'text', text: 'Be kind.' }] },
        { role: 'user', content: [{ type: 'text', text: 'What is 2+2?' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'add', arguments: '{"a":2,"b":2}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '4' },
        { role: 'user', content: 'Thanks' },
      ],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: Thanks')
  })

  it('answers malformed JSON with 400', async () => {
    const { gateway } = buildGateway()
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: '{"model": "gpt-4o-mini", "messages": [',
      }),
    )
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { type: string; message: string } }
    expect(body.error.type).toBe('invalid_request_error')
    expect(body.error.message).toMatch(/not valid JSON/)
  })

  it('answers a body over the size limit with 413 before reading it whole', async () => {
    const { gateway } = buildGateway({ maxBodyBytes: 1024 })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x'.repeat(4096) }],
      }),
    )
    expect(error.status).toBe(413)
    expect(error.code).toBe('request_too_large')
  })

  it('answers a streamed body over the limit with 413 even without content-length', async () => {
    const { gateway } = buildGateway({ maxBodyBytes: 1024 })
    let pulled = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1
        if (pulled > 1000) controller.close()
        else controller.enqueue(new Uint8Array(512).fill(32))
      },
    })
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body,
        duplex: 'half',
      } as RequestInit),
    )
    expect(response.status).toBe(413)
    expect(pulled).toBeLessThan(10)
  })
})

describe('routing errors', () => {
  it('answers an unknown model with 404 model_not_found', async () => {
    const { gateway } = buildGateway()
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({ model: 'no-such-model', messages: hello }),
    )
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error.code).toBe('model_not_found')
  })

  it('answers a model the key may not use with 404, and a pinned group it may not use with 403', async () => {
    const { gateway } = buildGateway()
    const client = openAIClient(gateway, keys.gptOnly)
    const notFound = await sdkError(() =>
      client.chat.completions.create({ model: 'demo-echo', messages: hello }),
    )
    expect(notFound.status).toBe(404)
    const forbidden = await sdkError(() =>
      client.chat.completions.create({ model: 'demo/demo-echo', messages: hello }),
    )
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError)
  })

  it('answers an unknown route with 404 and a wrong method with 405', async () => {
    const { gateway } = buildGateway()
    const unknown = await sdkError(() =>
      openAIClient(gateway).images.generate({ model: 'x', prompt: 'y' }),
    )
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe('not_found')
    const wrongMethod = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        headers: { authorization: `Bearer ${keys.main}` },
      }),
    )
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('POST')
    expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe(
      'method_not_allowed',
    )
  })
  it('answers a wrong method through the SDK with 405', async () => {
    const { gateway } = buildGateway()
    const error = await sdkError(() => openAIClient(gateway).get('/chat/completions'))
    expect(error.status).toBe(405)
    expect(error.code).toBe('method_not_allowed')
  })
})

describe('upstream errors', () => {
  it('answers an unreachable upstream with 502', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'network-error' })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(error.status).toBe(502)
    expect(error.code).toBe('upstream_unreachable')
  })

  it('answers an upstream that does not answer in time with 504', async () => {
    const { gateway } = buildGateway({ upstreamTimeoutMs: 50 })
    upstream.answer({ kind: 'hang' })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(error.status).toBe(504)
    expect(error.code).toBe('upstream_timeout')
  })

  it('answers a stream whose first event does not come in time with 504', async () => {
    const { gateway } = buildGateway({ upstreamTimeoutMs: 50 })
    // The lone upstream is tried as `retry.attempts` (3) says: a stream of its own for each.
    upstream.answerInTurn(
      Array.from({ length: 3 }, () => ({
        kind: 'controlled' as const,
        stream: controlledStream(),
      })),
    )
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: hello,
        stream: true,
      }),
    )
    expect(error.status).toBe(504)
    expect(upstream.calls.slice(-3).every((call) => call.signal.aborted)).toBe(true)
  })

  it('keeps the status and body of an upstream 500', async () => {
    const { gateway } = buildGateway()
    upstream.answer({
      kind: 'error',
      status: 500,
      body: {
        error: {
          message: 'The server had an error',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
    })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(error.status).toBe(500)
    expect(error.message).toContain('The server had an error')
  })

  it('passes an upstream 400 through with its param and code', async () => {
    const { gateway } = buildGateway()
    upstream.answer({
      kind: 'error',
      status: 400,
      body: {
        error: {
          message: "Invalid value for 'top_logprobs'.",
          type: 'invalid_request_error',
          param: 'top_logprobs',
          code: 'invalid_value',
        },
      },
    })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(error.status).toBe(400)
    expect(error.param).toBe('top_logprobs')
    expect(error.code).toBe('invalid_value')
  })

  it('relays retry-after from an upstream 429', async () => {
    const { gateway } = buildGateway()
    upstream.answer({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '7' },
      body: {
        error: {
          message: 'Rate limit reached',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(error.headers?.get('retry-after')).toBe('7')
  })

  it('turns an upstream 401 into 502, so the caller does not blame their own key', async () => {
    const { gateway } = buildGateway()
    upstream.answer({
      kind: 'error',
      status: 401,
      body: {
        error: {
          message: 'Incorrect API key provided: sk-upstr****',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    )
    expect(error.status).toBe(502)
    expect(error.message).toMatch(/refused the gateway's credentials/)
    expect(error.message).not.toContain('sk-upstr')
  })

  it('answers an error event sent before any content with its message as JSON, not a 200 stream', async () => {
    const { gateway } = buildGateway()
    upstream.answer({
      kind: 'sse',
      frames: [
        'data: {"error":{"message":"model overloaded","type":"server_error","code":null,"param":null}}\n\n',
      ],
    })
    const error = await sdkError(() =>
      openAIClient(gateway).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: hello,
        stream: true,
      }),
    )
    expect(error.status).toBe(502)
    expect(error.message).toContain('model overloaded')
  })
})

describe('mid-stream failures', () => {
  it('ends with the spec error event when the upstream connection breaks, after the partial text', async () => {
    const { gateway, meter } = buildGateway()
    upstream.answer({
      kind: 'sse',
      frames: chatStreamFrames(['Partial ', 'answer', ' never', ' finished']),
      failAfter: 3,
    })
    const stream = await openAIClient(gateway).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: hello,
      stream: true,
    })
    const received: string[] = []
    const failure = await (async () => {
      try {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '')
      } catch (error) {
        return error
      }
      return undefined
    })()
    expect(received.join('')).toBe('Partial answer')
    expect(failure).toBeInstanceOf(OpenAI.APIError)
    expect((failure as Error).message).toMatch(/failed mid-stream/)
    expect(meter.records().at(-1)?.outcome).toBe('error')
  })

  it('writes the error as `event: error` with an OpenAI error body, and sends no [DONE] after it', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b', 'c']), failAfter: 2 })
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: hello }),
      }),
    )
    const text = await response.text()
    const last = text.trimEnd().split('\n\n').at(-1)!
    expect(last.split('\n')[0]).toBe('event: error')
    const data = JSON.parse(last.split('\n')[1]!.slice('data: '.length)) as {
      error: Record<string, unknown>
    }
    expect(data.error).toMatchObject({ type: 'server_error', code: 'upstream_error' })
    expect(text).not.toContain('[DONE]')
  })

  it('ends a stream that falls idle with a timeout error event', async () => {
    const { gateway } = buildGateway({ streamIdleTimeoutMs: 60 })
    const stream = controlledStream()
    upstream.answer({ kind: 'controlled', stream })
    const frames = chatStreamFrames(['one', 'two'])
    stream.push(frames[0]!)
    stream.push(frames[1]!)
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: hello }),
      }),
    )
    const text = await response.text()
    expect(text).toContain('"content":"one"')
    expect(text).toContain('event: error')
    expect(text).toContain('upstream_timeout')
    expect(upstream.lastCall().signal.aborted).toBe(true)
  })

  it('relays an upstream error event mid-stream with the spec framing', async () => {
    const { gateway } = buildGateway()
    const frames = chatStreamFrames(['ok so far'])
    upstream.answer({
      kind: 'sse',
      frames: [
        frames[0]!,
        frames[1]!,
        'data: {"error":{"message":"context overflow","type":"server_error","param":null,"code":null}}\n\n',
      ],
    })
    const stream = await openAIClient(gateway).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: hello,
      stream: true,
    })
    const received: string[] = []
    await expect(async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '')
    }).rejects.toThrow(/context overflow/)
    expect(received.join('')).toBe('ok so far')
  })
})
