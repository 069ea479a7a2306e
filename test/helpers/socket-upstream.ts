import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request a socket upstream received. */
export type SocketCall = { method: string; url: string; headers: IncomingHttpHeaders; body: string }

/** How a socket upstream answers one request. */
export type SocketAnswer = {
  status?: number
  headers?: Record<string, string>
  /** Written one by one, each as its own write, `delayMs` apart. */
  chunks: readonly string[]
  delayMs?: number
  /** `end` closes the body properly; `reset` destroys the connection after the chunks. */
  then?: 'end' | 'reset'
}

/**
 * A real HTTP upstream on a loopback port, for tests where the socket matters (abnormal ends,
 * redirects, the Node transport). It records every call and answers as `answer` says.
 */
export async function startSocketUpstream(answer: (call: SocketCall) => SocketAnswer) {
  const calls: SocketCall[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', async () => {
      const call = {
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        headers: request.headers,
        body,
      }
      calls.push(call)
      const plan = answer(call)
      response.writeHead(plan.status ?? 200, plan.headers ?? {})
      response.flushHeaders()
      for (const chunk of plan.chunks) {
        if (plan.delayMs !== undefined) await new Promise((done) => setTimeout(done, plan.delayMs))
        response.write(chunk)
      }
      await new Promise((done) => setTimeout(done, plan.delayMs ?? 5))
      if (plan.then === 'reset') response.socket?.destroy()
      else response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}
