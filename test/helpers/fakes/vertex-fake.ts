import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { anthropicModelAnswer, checkAnthropicRequest } from './anthropic-fake'
import { checkGeminiRequest, geminiModelAnswer } from './gemini-fake'

/** One call the Vertex fake received. */
export type VertexCall = {
  path: string
  headers: Record<string, string | string[] | undefined>
  body: any
}

const modelPath =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)(\?alt=sse)?$/

/** Google's error shape (AIP-193). */
function googleError(response: ServerResponse, code: number, status: string, message: string) {
  response.writeHead(code, { 'content-type': 'application/json' })
  response.end(JSON.stringify({ error: { code, message, status } }))
}

/**
 * A loopback Vertex AI enforcing its rules: the bearer token must be one the token fake issued
 * and still holds valid (else Google's 401 UNAUTHENTICATED); the path must be
 * `/v1/projects/{project}/locations/{region}/publishers/{google|anthropic}/models/{model}:{method}`
 * for the expected project and region (else an HTML 404, as Google's front end answers).
 * Google publisher: `generateContent`, `streamGenerateContent` (only with `?alt=sse`),
 * `countTokens`, `embedContent` and `predict`, the Gemini rules checked (`checkGeminiRequest`).
 * Anthropic publisher: `rawPredict` and `streamRawPredict` with `anthropic_version:
 * "vertex-2023-10-16"`, no `model` in the body, `stream` matching the method, then Anthropic's
 * rules (`checkAnthropicRequest`); `count-tokens:rawPredict` with `model` in the body.
 * A model named `leakyModel` stands for a careless proxy in front of Vertex: it answers a 400 that
 * quotes the request's `authorization` header, for the tests of the gateway's scrubbing.
 */
export async function startVertexFake(options: {
  project: string
  region: string
  isValid: (token: string) => boolean
  leakyModel?: string
}) {
  const calls: VertexCall[] = []
  let unauthenticated = 0
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const path = request.url ?? ''
    const body = text === '' ? {} : JSON.parse(text)
    calls.push({ path, headers: request.headers, body })
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
    if (token === undefined || !options.isValid(token)) {
      unauthenticated += 1
      return googleError(
        response,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      )
    }
    const match = modelPath.exec(path)
    if (
      request.method !== 'POST' ||
      match === null ||
      match[1] !== options.project ||
      match[2] !== options.region
    ) {
      response.writeHead(404, { 'content-type': 'text/html; charset=UTF-8' })
      response.end('<!DOCTYPE html><html><title>Error 404 (Not Found)!!1</title></html>')
      return
    }
    const [, , , publisher, model, method, sse] = match as unknown as string[]
    if (model === options.leakyModel)
      return googleError(
        response,
        400,
        'INVALID_ARGUMENT',
        `Request rejected by proxy (authorization: ${request.headers.authorization}).`,
      )
    const send = (answer: { json: object } | { frames: string[] }) => {
      if ('json' in answer) {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify(answer.json))
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const frame of answer.frames) response.write(frame)
      response.end()
    }
    if (publisher === 'google') {
      if (method === 'countTokens')
        return send({ json: { totalTokens: 17, totalBillableCharacters: 60 } })
      if (method === 'embedContent') {
        if (body.content?.parts === undefined)
          return googleError(response, 400, 'INVALID_ARGUMENT', 'content is required.')
        return send({
          json: { embedding: { values: [0.1, 0.2, 0.3] }, usageMetadata: { promptTokenCount: 4 } },
        })
      }
      if (method === 'predict') {
        if (
          !Array.isArray(body.instances) ||
          body.instances.some((item: any) => typeof item.content !== 'string')
        )
          return googleError(response, 400, 'INVALID_ARGUMENT', 'instances[].content is required.')
        return send({
          json: {
            predictions: body.instances.map((_: unknown, index: number) => ({
              embeddings: {
                values: [index, 0.5, 0.25],
                statistics: { token_count: 4, truncated: false },
              },
            })),
            metadata: { billableCharacterCount: 20 },
          },
        })
      }
      const stream = method === 'streamGenerateContent'
      if ((stream && sse === undefined) || (!stream && method !== 'generateContent'))
        return googleError(response, 400, 'INVALID_ARGUMENT', `Unsupported method ${method}.`)
      const refused = checkGeminiRequest(model!, body)
      if (refused !== undefined) {
        response.writeHead(refused.status, { 'content-type': 'application/json' })
        response.end(JSON.stringify(refused.body))
        return
      }
      return send(geminiModelAnswer(model!, body, stream))
    }
    const anthropicRefusal = (message: string) => {
      response.writeHead(400, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }),
      )
    }
    if (body.anthropic_version !== 'vertex-2023-10-16')
      return anthropicRefusal("anthropic_version: Input should be 'vertex-2023-10-16'")
    if (model === 'count-tokens') {
      if (method !== 'rawPredict' || typeof body.model !== 'string')
        return anthropicRefusal('model: Field required')
      return send({ json: { input_tokens: 42 } })
    }
    if (method !== 'rawPredict' && method !== 'streamRawPredict')
      return anthropicRefusal(`Unsupported method ${method}.`)
    if (body.model !== undefined) return anthropicRefusal('model: Extra inputs are not permitted')
    if ((body.stream === true) !== (method === 'streamRawPredict'))
      return anthropicRefusal('stream must be true for streamRawPredict and absent for rawPredict')
    const withModel = { ...body, model }
    const refused = checkAnthropicRequest(withModel)
    if (refused !== undefined) {
      response.writeHead(refused.status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(refused.body))
      return
    }
    return send(anthropicModelAnswer(withModel))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    get unauthenticated() {
      return unauthenticated
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
