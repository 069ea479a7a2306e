import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { checkOpenAIRequest } from './fakes/openai-fake'

/** What the upstream reported for one request, by the marker `[#n]` in its last user message. */
export type ReportedUsage = { prompt: number; completion: number; total: number }

/**
 * An OpenAI chat-completions upstream on a real port, for gateways in other processes (msw only
 * reaches the test's own process). It enforces what the real API does on the way in (its key,
 * the model rules of the fakes, `stream_options.include_usage` on streams the gateway meters),
 * streams one token per chunk with a pause between chunks so that clients can leave mid-stream,
 * honours `max_tokens`, and ends with the usage chunk and `[DONE]`. It records the usage it wrote
 * per request, and stops writing when the gateway goes away.
 */
export async function startOpenAIHttpUpstream(options: { apiKey: string; chunkDelayMs: number }) {
  const reported = new Map<number, ReportedUsage>()
  let calls = 0
  const server = createServer((request, response) => {
    void answer(request, response).catch(() => response.destroy())
  })
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    let text = ''
    for await (const chunk of request) text += String(chunk)
    if (request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return json(response, 401, {
        error: {
          message: 'Incorrect API key provided.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      })
    }
    const body = JSON.parse(text) as Record<string, any>
    const refused = checkOpenAIRequest(body)
    if (refused !== undefined) return json(response, refused.status, refused.body)
    if (body['stream'] !== true || body['stream_options']?.include_usage !== true) {
      return json(response, 400, {
        error: {
          message: 'This upstream only streams with usage.',
          type: 'invalid_request_error',
          param: 'stream',
          code: null,
        },
      })
    }
    calls += 1
    const messages = body['messages'] as Array<{ role: string; content: string }>
    const last = messages[messages.length - 1]!.content
    const marker = Number(/\[#(\d+)\]/.exec(last)?.[1] ?? -1)
    const prompt = Math.ceil(last.length / 4)
    const completion = Math.min(Number(body['max_tokens'] ?? 64), 16 + (marker % 9))
    const id = `chatcmpl-http${calls}`
    const chunk = (payload: object) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_763_000_000, model: body['model'], ...payload })}\n\n`
    let gone = false
    response.on('close', () => void (gone = !response.writableFinished))
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    response.write(
      chunk({
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
      }),
    )
    for (let index = 0; index < completion && !gone; index += 1) {
      await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs))
      response.write(
        chunk({ choices: [{ index: 0, delta: { content: `w${index} ` }, finish_reason: null }] }),
      )
    }
    if (gone) return
    response.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }))
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    }
    reported.set(marker, { prompt, completion, total: usage.total_tokens })
    response.write(chunk({ choices: [], usage }))
    response.end('data: [DONE]\n\n')
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    reported,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function json(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}
