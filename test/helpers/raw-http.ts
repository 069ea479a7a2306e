import { connect, type Socket } from 'node:net'

/** An HTTP/1.1 answer as read off the socket. */
export type RawAnswer = { status: number; headers: Record<string, string>; body: string }

/** Opens a TCP connection to an `http://host:port` URL. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket))
    socket.once('error', reject)
  })
}

/**
 * Sends raw request bytes (what no HTTP client would send: a malformed `Host`, a `TRACE`) and
 * reads the answer until the server closes the connection. Send `connection: close`.
 */
export async function rawRequest(url: string, text: string): Promise<RawAnswer> {
  const socket = await openSocket(url)
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.write(text)
  await new Promise<void>((resolve) => {
    socket.once('close', () => resolve())
    socket.once('error', () => resolve())
  })
  return parseAnswer(Buffer.concat(chunks).toString('latin1'))
}

/** Parses a whole HTTP/1.1 answer, decoding a chunked body. */
export function parseAnswer(text: string): RawAnswer {
  const split = text.indexOf('\r\n\r\n')
  const head = split < 0 ? text : text.slice(0, split)
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = split < 0 ? '' : text.slice(split + 4)
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = ''
    for (;;) {
      const end = body.indexOf('\r\n')
      const size = Number.parseInt(body.slice(0, end), 16)
      if (!(size > 0)) break
      decoded += body.slice(end + 2, end + 2 + size)
      body = body.slice(end + 2 + size + 2)
    }
    body = decoded
  }
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: Buffer.from(body, 'latin1').toString('utf8'),
  }
}
