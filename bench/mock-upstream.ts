import { createServer, type Server, type ServerResponse } from 'node:http'
import { anthropicStreamFrames, completionJson, streamFrames } from './payloads'

const streamPattern = /"stream"\s*:\s*true/
const usagePattern = /"include_usage"\s*:\s*true/
/** A stream request whose body names this user is held open after its first frame. */
export const holdMarker = 'bench-hold-open'

/**
 * A zero-latency upstream: OpenAI's `POST /v1/chat/completions` answers a `chat.completion`, or
 * with `"stream":true` an SSE stream of chunks (plus the usage chunk when `include_usage` is set)
 * and `data: [DONE]`; Anthropic's `POST /v1/messages` answers a messages stream of the same text.
 * Each event is its own `write`, as a real server flushes each token; with no delay between them
 * the kernel may still coalesce them on the wire. A stream request carrying `holdMarker` gets its
 * headers and first frame, then stays open until its client leaves (the open-streams case).
 */
export function createMockUpstream(): Server {
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const anthropic = request.url?.endsWith('/v1/messages') === true
      if (
        request.method !== 'POST' ||
        (!anthropic && !request.url?.endsWith('/chat/completions'))
      ) {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end('{"error":{"message":"Unknown route","type":"invalid_request_error"}}')
        return
      }
      const headers = anthropic
        ? { 'request-id': 'req_bench0000000000000000000000' }
        : {
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
      const frames = anthropic
        ? anthropicStreamFrames
        : usagePattern.test(body)
          ? streamFrames.withUsage
          : streamFrames.withoutUsage
      if (body.includes(holdMarker)) {
        response.write(frames[0])
        return
      }
      writeFrames(response, frames)
    })
  })
  server.keepAliveTimeout = 65_000
  return server
}

function writeFrames(response: ServerResponse, frames: readonly string[]): void {
  for (let index = 0; index < frames.length - 1; index += 1) response.write(frames[index])
  response.end(frames[frames.length - 1])
}
