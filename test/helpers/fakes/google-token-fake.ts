import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A service-account key made for a test: its JSON (private half) and the public half's PEM. */
export type TestServiceAccount = {
  json: Record<string, string>
  publicKey: string
}

/** Service accounts made so far: each gets its own email. */
let made = 0

/**
 * A service-account key file with a fresh RSA-2048 key pair (node:crypto), its `token_uri` at
 * `tokenUri` so that the token exchange reaches a loopback fake.
 */
export function makeServiceAccount(
  tokenUri: string,
  email = `gateway-${++made}@test-project.iam.gserviceaccount.com`,
): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return {
    json: {
      type: 'service_account',
      project_id: 'test-project',
      private_key_id: 'kid-0123456789abcdef',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      client_email: email,
      client_id: '100000000000000000001',
      token_uri: tokenUri,
    },
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  }
}

/** The scope Vertex AI needs. */
const cloudPlatform = 'https://www.googleapis.com/auth/cloud-platform'

/**
 * A loopback Google OAuth token endpoint enforcing Google's rules. A `jwt-bearer` grant's
 * assertion must be an RS256 JWT whose signature verifies with the registered account's public
 * key (independent code: node:crypto), with `iss` that account, `aud` this endpoint's URL,
 * the cloud-platform scope, `exp − iat` at most 3600 s ("Token must be a short-lived token") and
 * `iat` within 5 minutes of the endpoint's clock; a `refresh_token` grant must carry the
 * registered client and refresh token. Each answer is a fresh `ya29.` token valid for
 * `lifetimeSeconds`: `isValid` is false once that has passed on `now` (the endpoint's clock, which
 * a test shares with the gateway to move time), and for every token after `revokeAll()`.
 */
export async function startGoogleTokenFake(
  options: { lifetimeSeconds?: number; delayMs?: number; now?: () => number } = {},
) {
  const now = options.now ?? Date.now
  const accounts = new Map<string, string>()
  const users = new Map<string, { clientSecret: string; refreshToken: string }>()
  /** Tokens issued and not revoked, with when each expires (epoch ms). */
  const valid = new Map<string, number>()
  const refusals: string[] = []
  let fetches = 0
  let issued = 0
  const refuse = (response: ServerResponse, description: string) => {
    refusals.push(description)
    response.writeHead(400, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ error: 'invalid_grant', error_description: description }))
  }
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    fetches += 1
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs))
    if (request.method !== 'POST' || request.url !== '/token') {
      response.writeHead(404).end()
      return
    }
    if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return refuse(response, 'Bad Request')
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
    const grant = form.get('grant_type')
    if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      const parts = (form.get('assertion') ?? '').split('.')
      if (parts.length !== 3) return refuse(response, 'Invalid JWT: not three parts.')
      const [head, body, signature] = parts as [string, string, string]
      const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'))
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
      if (header.alg !== 'RS256') return refuse(response, 'Invalid JWT: alg must be RS256.')
      const publicKey = accounts.get(claims.iss)
      if (publicKey === undefined) return refuse(response, 'Invalid JWT Signature.')
      const ok = verify(
        'RSA-SHA256',
        Buffer.from(`${head}.${body}`),
        createPublicKey(publicKey),
        Buffer.from(signature, 'base64url'),
      )
      if (!ok) return refuse(response, 'Invalid JWT Signature.')
      if (claims.aud !== `${url}/token`) return refuse(response, 'Invalid JWT: aud mismatch.')
      if (!String(claims.scope).split(' ').includes(cloudPlatform))
        return refuse(response, 'Invalid JWT: scope.')
      if (!(claims.exp - claims.iat <= 3600))
        return refuse(
          response,
          'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.',
        )
      if (Math.abs(claims.iat - now() / 1000) > 300)
        return refuse(response, 'Invalid JWT: iat is not in a reasonable timeframe.')
    } else if (grant === 'refresh_token') {
      const user = users.get(form.get('client_id') ?? '')
      if (
        user === undefined ||
        user.clientSecret !== form.get('client_secret') ||
        user.refreshToken !== form.get('refresh_token')
      )
        return refuse(response, 'Bad Request')
    } else {
      return refuse(response, 'Unsupported grant type.')
    }
    issued += 1
    const token = `ya29.fake-access-token-${issued}-${Math.random().toString(36).slice(2)}`
    const lifetime = options.lifetimeSeconds ?? 3599
    valid.set(token, now() + lifetime * 1000)
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(
      JSON.stringify({ access_token: token, expires_in: lifetime, token_type: 'Bearer' }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    tokenUri: `${url}/token`,
    /** Accepts assertions signed by this account's key. */
    register(account: TestServiceAccount) {
      accounts.set(account.json['client_email']!, account.publicKey)
    },
    /** Accepts this user's refresh grant. */
    registerUser(clientId: string, clientSecret: string, refreshToken: string) {
      users.set(clientId, { clientSecret, refreshToken })
    },
    /** Whether Vertex takes `token`: issued here, not revoked, not expired on `now`. */
    isValid: (token: string) => now() < (valid.get(token) ?? 0),
    /** Stops accepting this account's assertions (a key deleted in IAM). */
    unregister(account: TestServiceAccount) {
      accounts.delete(account.json['client_email']!)
    },
    revokeAll: () => valid.clear(),
    get fetches() {
      return fetches
    },
    refusals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A token fake, started. */
export type GoogleTokenFake = Awaited<ReturnType<typeof startGoogleTokenFake>>

/**
 * A loopback GCE metadata server: it answers the default service account's token only to a
 * request with `Metadata-Flavor: Google` (403 otherwise, as Google's does), with the header back.
 */
export async function startMetadataFake(tokens: { issue(): string }) {
  let fetches = 0
  let refused = 0
  const server = createServer((request, response) => {
    request.resume()
    fetches += 1
    if (request.headers['metadata-flavor'] !== 'Google') {
      refused += 1
      response.writeHead(403, { 'content-type': 'text/html' })
      response.end('Missing Metadata-Flavor:Google header.')
      return
    }
    if (!request.url?.startsWith('/computeMetadata/v1/instance/service-accounts/default/token')) {
      response.writeHead(404, { 'metadata-flavor': 'Google' }).end()
      return
    }
    response.writeHead(200, { 'content-type': 'application/json', 'metadata-flavor': 'Google' })
    response.end(
      JSON.stringify({ access_token: tokens.issue(), expires_in: 3599, token_type: 'Bearer' }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    get fetches() {
      return fetches
    },
    get refused() {
      return refused
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
