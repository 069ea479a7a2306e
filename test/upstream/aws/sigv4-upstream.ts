import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { verifySigV4, type VerifierSettings } from './sigv4-verifier'

/**
 * A loopback upstream that checks every request's SigV4 signature with the independent verifier
 * and refuses as AWS does: 403 `ExpiredTokenException` for a session token it was told has
 * expired, 403 `InvalidSignatureException` (with the canonical string) or
 * `UnrecognizedClientException` otherwise. A signed request gets an OpenAI chat completion, so the
 * gateway's OpenAI family can carry it. It records what each request carried.
 */
export function startSigV4Upstream(settings: Omit<VerifierSettings, 'now'>) {
  const expiredTokens = new Set<string>()
  const seen: {
    token: string | undefined
    headers: Record<string, string | string[] | undefined>
  }[] = []
  let refusedExpired = 0
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const token = request.headers['x-amz-security-token'] as string | undefined
      seen.push({ token, headers: request.headers })
      const refuse = (type: string, message: string) => {
        response.writeHead(403, {
          'content-type': 'application/json',
          'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.coral.service/`,
        })
        response.end(JSON.stringify({ message }))
      }
      if (token !== undefined && expiredTokens.has(token)) {
        refusedExpired += 1
        refuse('ExpiredTokenException', 'The security token included in the request is expired')
        return
      }
      const verdict = verifySigV4(
        {
          method: request.method!,
          target: request.url!,
          headers: request.headers,
          body: Buffer.concat(chunks),
        },
        { ...settings, now: Date.now() },
      )
      if (!verdict.ok) {
        if (verdict.reason === 'UnrecognizedClientException') {
          refuse(
            'UnrecognizedClientException',
            'The security token included in the request is invalid.',
          )
        } else refuse('InvalidSignatureException', verdict.reason ?? 'invalid')
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({
          id: 'chatcmpl-signed',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [
            { index: 0, message: { role: 'assistant', content: 'signed' }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        }),
      )
    })
  })
  return {
    server,
    seen,
    /** The session token AWS now calls expired. */
    expire: (token: string) => void expiredTokens.add(token),
    get refusedExpired() {
      return refusedExpired
    },
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
