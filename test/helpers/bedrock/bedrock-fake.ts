import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { anthropicModelAnswer, checkAnthropicRequest } from '../fakes/anthropic-fake'
import { converseProblem } from '../fakes/converse-rules'
import { chunkFrame, converseFrame, errorFrame, exceptionFrame } from './event-stream-encoder'
import { verifySigV4, type FakeAwsCredentials, type ReceivedRequest } from './sigv4-verifier'
import { checkBedrockClaudeBody, foundationOf } from './bedrock-rules'

/** How the fake answers the next stream (each mode is used once, in order). */
export type StreamMode =
  | { kind: 'exception-first'; exception: string; message?: string }
  | { kind: 'exception-after'; events: number; exception: string; message?: string }
  | { kind: 'error-frame'; code: string; message: string }
  | { kind: 'corrupt-crc'; at: number }
  | { kind: 'truncate'; events: number }

/** A call the fake received, after its checks. */
export type BedrockCall = {
  path: string
  modelId: string
  operation: string
  body: Record<string, any>
  headers: Record<string, string>
}

/** The options of the fake. */
export type BedrockFakeOptions = {
  region: string
  credentials?: FakeAwsCredentials | undefined
  apiKey?: string | undefined
  /** Bytes per write of a stream answer (every frame split across writes). */
  writeBytes?: number | undefined
  now?: () => Date
}

/**
 * A Bedrock Runtime on a loopback port that enforces what AWS does: each request's SigV4
 * signature recomputed by an independent verifier (or a Bedrock API key as a bearer token),
 * refused with AWS's 403 and `x-amzn-errortype`; model ids encoded once in the path; the Claude
 * body rules of InvokeModel and Anthropic's own (`checkBedrockClaudeBody`, `checkAnthropicRequest`);
 * CountTokens with a foundation model only. It answers InvokeModel and Converse, in JSON and in
 * binary event streams (frames encoded with zlib's CRC, written in pieces of `writeBytes`), and a
 * test may script the next streams: an exception before the first event or after some, an `error`
 * frame, a corrupt CRC, a stream cut inside a frame.
 */
export async function startBedrockFake(options: BedrockFakeOptions) {
  const calls: BedrockCall[] = []
  const streamModes: StreamMode[] = []
  const httpErrors: { status: number; errorType: string; message: string }[] = []
  /** Prompt prefixes already cached (for `cache_control`'s read and write tokens). */
  const cached = new Set<string>()
  const server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => {
      response.destroy(error as Error)
    })
  })
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const received: ReceivedRequest = {
      method: request.method ?? '',
      target: request.url ?? '',
      headers: Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(',') : (value ?? ''),
        ]),
      ),
      body: Buffer.concat(chunks),
    }
    const refused = authProblem(received, options)
    if (refused !== undefined)
      return awsError(response, refused.status, refused.errorType, refused.message)
    const scripted = httpErrors.shift()
    if (scripted !== undefined) {
      return awsError(response, scripted.status, scripted.errorType, scripted.message)
    }
    const route =
      /^\/model\/([^/?]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/.exec(
        received.target,
      )
    if (route === null || received.method !== 'POST') {
      return awsError(response, 404, 'UnknownOperationException', 'Unknown operation.')
    }
    const [, rawId, operation] = route as unknown as [string, string, string]
    const modelId = decodeURIComponent(rawId)
    // Encoded once: the id must come back to exactly what was sent.
    if (encodeURIComponent(modelId) !== rawId || !validModelId(modelId)) {
      return awsError(
        response,
        400,
        'ValidationException',
        'The provided model identifier is invalid.',
      )
    }
    let body: Record<string, any>
    try {
      body = JSON.parse(received.body.toString('utf8'))
    } catch {
      return awsError(response, 400, 'SerializationException', 'Malformed request body.')
    }
    calls.push({ path: received.target, modelId, operation, body, headers: received.headers })
    if (operation === 'count-tokens') return countTokens(response, modelId, body)
    if (operation.startsWith('converse'))
      return converse(response, modelId, operation === 'converse-stream', body)
    const problem =
      checkBedrockClaudeBody(body, received.headers) ??
      checkAnthropicRequest({ ...body, model: foundationOf(modelId) })
    if (problem !== undefined)
      return awsError(response, 400, 'ValidationException', refusalMessage(problem))
    const modelAnswer = anthropicModelAnswer({
      ...body,
      model: foundationOf(modelId),
      stream: operation !== 'invoke',
    })
    const usage = cacheUsage(body, cached)
    if ('json' in modelAnswer) {
      const json = modelAnswer.json as Record<string, any>
      Object.assign(json['usage'], usage)
      return send(response, 200, 'application/json', JSON.stringify(json))
    }
    const events = modelAnswer.frames.map(
      (frame) => JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as Record<string, any>,
    )
    Object.assign(events[0]!['message']['usage'], usage)
    events.at(-1)!['amazon-bedrock-invocationMetrics'] = {
      inputTokenCount: 10,
      outputTokenCount: 7,
      invocationLatency: 880,
      firstByteLatency: 402,
    }
    return stream(
      response,
      events.map((event) => chunkFrame(event)),
    )
  }

  /** CountTokens: a foundation model, a base64 InvokeModel body that InvokeModel would take. */
  const countTokens = (response: ServerResponse, modelId: string, body: Record<string, any>) => {
    if (modelId !== foundationOf(modelId, { keepVersion: true }) || modelId.startsWith('arn:')) {
      return awsError(
        response,
        400,
        'ValidationException',
        'The provided model identifier is invalid.',
      )
    }
    const encoded = body['input']?.['invokeModel']?.['body']
    if (typeof encoded !== 'string' || Object.keys(body).length !== 1) {
      return awsError(
        response,
        400,
        'ValidationException',
        "1 validation error detected: Value at 'input' failed to satisfy constraint",
      )
    }
    const invoke = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Record<
      string,
      any
    >
    const problem =
      checkBedrockClaudeBody(invoke, {}) ??
      checkAnthropicRequest({ ...invoke, model: foundationOf(modelId) })
    if (problem !== undefined)
      return awsError(response, 400, 'ValidationException', refusalMessage(problem))
    return send(
      response,
      200,
      'application/json',
      JSON.stringify({ inputTokens: Math.ceil(JSON.stringify(invoke['messages']).length / 4) }),
    )
  }

  /** Converse: a text answer, in JSON or as ConverseStream's events. */
  const converse = (
    response: ServerResponse,
    modelId: string,
    streamed: boolean,
    body: Record<string, any>,
  ) => {
    const problem = converseProblem(body, new Set())
    if (problem !== undefined) return awsError(response, 400, 'ValidationException', problem)
    const text = `Answer from ${foundationOf(modelId)}.`
    const usage = { inputTokens: 12, outputTokens: 6, totalTokens: 18 }
    if (!streamed) {
      return send(
        response,
        200,
        'application/json',
        JSON.stringify({
          output: { message: { role: 'assistant', content: [{ text }] } },
          stopReason: 'end_turn',
          usage,
          metrics: { latencyMs: 120 },
        }),
      )
    }
    return stream(response, [
      converseFrame('messageStart', { role: 'assistant' }),
      converseFrame('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { text: text.slice(0, 6) },
      }),
      converseFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: text.slice(6) } }),
      converseFrame('contentBlockStop', { contentBlockIndex: 0 }),
      converseFrame('messageStop', { stopReason: 'end_turn' }),
      converseFrame('metadata', { usage, metrics: { latencyMs: 120 } }),
    ])
  }

  /** Writes a stream's frames as the next scripted mode says, in pieces of `writeBytes`. */
  const stream = async (response: ServerResponse, frames: Buffer[]) => {
    const mode = streamModes.shift()
    let out = frames
    if (mode?.kind === 'exception-first')
      out = [
        exceptionFrame(
          mode.exception,
          mode.message ?? 'Too many requests, please wait before trying again.',
        ),
      ]
    if (mode?.kind === 'exception-after')
      out = [
        ...frames.slice(0, mode.events),
        exceptionFrame(
          mode.exception,
          mode.message ?? 'Too many requests, please wait before trying again.',
        ),
      ]
    if (mode?.kind === 'error-frame') out = [errorFrame(mode.code, mode.message)]
    if (mode?.kind === 'corrupt-crc') {
      out = frames.map((frame, index) => {
        if (index !== mode.at) return frame
        const bad = Buffer.from(frame)
        bad[bad.length - 1]! ^= 0xff
        return bad
      })
    }
    let bytes = Buffer.concat(out)
    if (mode?.kind === 'truncate') {
      const whole = Buffer.concat(frames.slice(0, mode.events))
      bytes = Buffer.concat([whole, frames[mode.events]!.subarray(0, 20)])
    }
    response.writeHead(200, {
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-requestid': 'fake-request-id',
    })
    const size = options.writeBytes ?? bytes.length
    for (let at = 0; at < bytes.length; at += size) {
      response.write(bytes.subarray(at, at + size))
      if (size < bytes.length) await new Promise((resolve) => setImmediate(resolve))
    }
    response.end()
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    /** Scripts the next streams' answers, in order. */
    nextStreams: (...modes: StreamMode[]) => void streamModes.push(...modes),
    /** Scripts the next answers as AWS errors (after the request's authentication), in order. */
    nextErrors: (...errors: { status: number; errorType: string; message: string }[]) =>
      void httpErrors.push(...errors),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Why AWS would refuse the request's credentials, or `undefined`. */
function authProblem(request: ReceivedRequest, options: BedrockFakeOptions) {
  const authorization = request.headers['authorization'] ?? ''
  if (authorization.startsWith('Bearer ')) {
    if (options.apiKey !== undefined && authorization === `Bearer ${options.apiKey}`)
      return undefined
    return {
      status: 403,
      errorType: 'UnrecognizedClientException',
      message: 'Invalid API Key format: Must start with pre-defined prefix',
    }
  }
  if (options.credentials === undefined) {
    return {
      status: 403,
      errorType: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    }
  }
  return verifySigV4(request, options.credentials, {
    region: options.region,
    service: 'bedrock',
    now: options.now?.() ?? new Date(),
  })
}

/** A Bedrock id: a foundation model, an inference profile (`us.…`), or an ARN. */
function validModelId(id: string): boolean {
  return (
    /^(?:(?:us|us-gov|eu|apac|jp|au|ca|global)\.)?[a-z0-9-]+\.[a-z0-9.-]+(?::\d+)?$/.test(id) ||
    /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{12}:[a-z-]+\/[A-Za-z0-9.:-]+$/.test(id)
  )
}

/** Read and write tokens of `cache_control`: a prefix written on its first call, read after. */
function cacheUsage(body: Record<string, any>, cached: Set<string>) {
  const text = JSON.stringify([body['system'], body['tools'], body['messages']])
  if (!text.includes('"cache_control"')) return {}
  const prefix = JSON.stringify([body['system'], body['tools']])
  if (cached.has(prefix)) return { cache_read_input_tokens: 1200, cache_creation_input_tokens: 0 }
  cached.add(prefix)
  return { cache_read_input_tokens: 0, cache_creation_input_tokens: 1200 }
}

function awsError(response: ServerResponse, status: number, errorType: string, message: string) {
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'fake-request-id',
  })
  response.end(JSON.stringify({ message }))
}

function send(response: ServerResponse, status: number, type: string, text: string) {
  response.writeHead(status, { 'content-type': type, 'x-amzn-requestid': 'fake-request-id' })
  response.end(text)
}

/** The message of a refusal: Bedrock's own, or the one inside Anthropic's error body. */
function refusalMessage(problem: { message: string } | { status: number; body: object }): string {
  if ('message' in problem) return problem.message
  return String((problem.body as { error?: { message?: string } }).error?.message)
}
