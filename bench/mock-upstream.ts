import { createServer, type Server } from 'node:http'
import { completionJson, streamFrames } from './payloads'

const streamPattern = /"stream"\s*:\s*true/
const usagePattern = /"include_usage"\s*:\s*true/

/**
 * A zero-latency OpenAI upstream: `POST /v1/chat/completions` answers a `chat.completion`, or with
 * `"stream":true` an SSE stream of chunks (plus the usage chunk when `include_usage` is set) and
 * `data: [DONE]`. Each event is its own `write`, as a real server flushes each token; with no
 * delay between them the kernel may still coalesce them on the wire.
 */
export function createMockUpstream(): Server {
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end('{"error":{"message":"Unknown route","type":"invalid_request_error"}}')
        return
      }
      const headers = {
        'x-request-id': 'req_bench0000000000000000000000',
        'openai-processing-ms': '0',
        'openai-version': '2020-10-01',
      }
      if (!streamPattern.test(body)) {
        response.writeHead(200, { ...headers, 'content-type': 'application/json' })
        response.end(completionJson)
        return
      }
      response.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
      })
      const frames = usagePattern.test(body) ? streamFrames.withUsage : streamFrames.withoutUsage
      for (let index = 0; index < frames.length - 1; index += 1) response.write(frames[index])
      response.end(frames[frames.length - 1])
    })
  })
  server.keepAliveTimeout = 65_000
  return server
}
