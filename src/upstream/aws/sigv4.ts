import type { AwsCredentials } from '../credentials/cloud-credentials'
import type { PreparedRequest } from '../prepared-request'
import { hexOf, hmacKey, hmacSign, sha256Hex } from './web-crypto'

/**
 * AWS Signature Version 4 over Web Crypto, so a request is signed the same on Node, Bun, Deno and
 * Workers. Written here rather than taken from aws4fetch or `@smithy/signature-v4` (see
 * docs/cloud-credentials.md): the gateway must choose which headers are signed (never the
 * forwarded client headers, LiteLLM #14763), sign a `PreparedRequest` record without building a
 * `Request` or `Headers` per call, and keep the derived key of the day without an unbounded map.
 */

/** The parts of a request that SigV4 signs, as they go on the wire. */
export type CanonicalInput = {
  readonly method: string
  /** The path as sent: already percent-encoded once (`%3A` for a `:` in a model id). */
  readonly path: string
  /** The query string as sent, without `?` (may be empty). */
  readonly query: string
  /** The headers to sign, by lower-case name; `host` included. */
  readonly headers: Readonly<Record<string, string>>
  /** The hex SHA-256 of the body. */
  readonly bodyHash: string
}

/** Where and when a request is signed. */
export type SigV4Scope = {
  /** The region, `us-east-1`. */
  readonly region: string
  /** The signing name of the service: `bedrock` for Bedrock Runtime, `sts` for STS. */
  readonly service: string
  /** The time of signing, `YYYYMMDDTHHMMSSZ`. */
  readonly amzDate: string
}

/** The `x-amz-date` form of an epoch-milliseconds time: `20150830T123600Z`. */
export function amzDateOf(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/[-:]|\.\d{3}/g, '')
}

/**
 * RFC 3986 encoding as SigV4 wants it: every byte but the unreserved `A-Z a-z 0-9 - . _ ~`.
 * `encodeURIComponent` leaves `! ' ( ) *` as they are, so those are encoded after it.
 */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

/**
 * The canonical URI of a path as sent, for every service but S3: the path normalised (empty and
 * `.` segments dropped, `..` applied) and each segment encoded once more, so the wire's `%3A`
 * becomes `%253A` (AWS's rejections quote `/model/…v1%253A0/converse-stream`).
 */
export function canonicalPath(path: string): string {
  const segments: string[] = []
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(uriEncode(segment))
  }
  if (segments.length === 0) return '/'
  return `/${segments.join('/')}${path.endsWith('/') ? '/' : ''}`
}

/**
 * The canonical query: each name and value decoded from the wire, encoded as SigV4 wants, sorted
 * by name then value. A pair whose name is empty is dropped, as AWS's SDKs do.
 */
export function canonicalQuery(query: string): string {
  if (query === '') return ''
  const pairs: [string, string][] = []
  for (const part of query.split('&')) {
    const equals = part.indexOf('=')
    const name = decodeQueryPart(equals < 0 ? part : part.slice(0, equals))
    if (name === '') continue
    pairs.push([
      uriEncode(name),
      uriEncode(equals < 0 ? '' : decodeQueryPart(part.slice(equals + 1))),
    ])
  }
  pairs.sort(([n1, v1], [n2, v2]) => (n1 < n2 ? -1 : n1 > n2 ? 1 : v1 < v2 ? -1 : v1 > v2 ? 1 : 0))
  return pairs.map(([name, value]) => `${name}=${value}`).join('&')
}

/** A query part decoded; one that is not valid percent-encoding is taken as it is. */
function decodeQueryPart(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/** The sorted `;`-joined names of the signed headers. */
export function signedHeaderList(headers: Readonly<Record<string, string>>): string {
  return Object.keys(headers).sort().join(';')
}

/** The canonical request: method, URI, query, headers (trimmed, spaces folded), names, body hash. */
export function canonicalRequest(input: CanonicalInput): string {
  const names = Object.keys(input.headers).sort()
  let headerLines = ''
  for (const name of names) {
    // lookup-safe: names are the record's own keys
    headerLines += `${name}:${input.headers[name]!.trim().replace(/\s+/g, ' ')}\n`
  }
  return `${input.method.toUpperCase()}\n${canonicalPath(input.path)}\n${canonicalQuery(input.query)}\n${headerLines}\n${names.join(';')}\n${input.bodyHash}`
}

/** The credential scope: `20150830/us-east-1/bedrock/aws4_request`. */
export function credentialScope(scope: SigV4Scope): string {
  return `${scope.amzDate.slice(0, 8)}/${scope.region}/${scope.service}/aws4_request`
}

/**
 * Keeps the signing key of the day for one secret, region and service: deriving it costs four
 * HMACs, signing with it one. Holds a single key, so a rotating credential never grows it.
 */
export class SigningKeys {
  private held: { secret: string; id: string; key: Promise<CryptoKey> } | undefined

  /** The HMAC key `kSigning` for `secret` in `scope`. */
  keyFor(secret: string, scope: SigV4Scope): Promise<CryptoKey> {
    const id = `${scope.amzDate.slice(0, 8)}/${scope.region}/${scope.service}`
    const held = this.held
    if (held !== undefined && held.secret === secret && held.id === id) return held.key
    const key = deriveSigningKey(secret, scope)
    this.held = { secret, id, key }
    // A failed derivation is not kept.
    key.catch(() => {
      if (this.held?.key === key) this.held = undefined
    })
    return key
  }
}

async function deriveSigningKey(secret: string, scope: SigV4Scope): Promise<CryptoKey> {
  const encoder = new TextEncoder()
  const kDate = await hmacSign(
    await hmacKey(encoder.encode(`AWS4${secret}`)),
    scope.amzDate.slice(0, 8),
  )
  const kRegion = await hmacSign(await hmacKey(kDate), scope.region)
  const kService = await hmacSign(await hmacKey(kRegion), scope.service)
  const kSigning = await hmacSign(await hmacKey(kService), 'aws4_request')
  return hmacKey(kSigning)
}

/**
 * The `authorization` header value of a canonical request signed with `credentials` in `scope`:
 * `AWS4-HMAC-SHA256 Credential=…/<scope>, SignedHeaders=…, Signature=…`.
 */
export async function authorizationOf(
  input: CanonicalInput,
  credentials: Pick<AwsCredentials, 'accessKeyId' | 'secretAccessKey'>,
  scope: SigV4Scope,
  keys: SigningKeys = new SigningKeys(),
): Promise<string> {
  const credential = credentialScope(scope)
  const stringToSign = `AWS4-HMAC-SHA256\n${scope.amzDate}\n${credential}\n${await sha256Hex(canonicalRequest(input))}`
  const signature = hexOf(
    await hmacSign(await keys.keyFor(credentials.secretAccessKey, scope), stringToSign),
  )
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credential}, SignedHeaders=${signedHeaderList(input.headers)}, Signature=${signature}`
}

/**
 * Headers a signer replaces: a previous signature must never survive a re-sign, and a `host`
 * header is dropped so that the transport sends the URL's host, the one that was signed.
 */
const signatureHeaders = ['authorization', 'x-amz-date', 'x-amz-security-token', 'host']

/**
 * Whether a header of a prepared request is signed: `host`, `content-type` and AWS's own
 * `x-amz-*` headers. Anything else (the forwarded client headers, `user-agent`) is sent unsigned,
 * so a proxy that rewrites it cannot break the signature (LiteLLM #14763).
 */
export function isSignedHeader(name: string): boolean {
  return name === 'host' || name === 'content-type' || name.startsWith('x-amz-')
}

/** What `signRequest` needs besides the request. */
export type SignRequestOptions = {
  readonly credentials: AwsCredentials
  readonly region: string
  readonly service: string
  /** The time of signing, epoch milliseconds. */
  readonly now: number
  /** The signer's key of the day (one per upstream, reused across calls). */
  readonly keys?: SigningKeys | undefined
}

/**
 * Signs a prepared request in place (and returns it): sets `x-amz-date`, the session's
 * `x-amz-security-token` (or removes a stale one) and `authorization`, over the method, the path
 * and query as sent, `host` (from the URL, with its port), `content-type`, the `x-amz-*` headers
 * and the SHA-256 of the body. Header names must be lower case, as a `PreparedRequest`'s are.
 */
export async function signRequest(
  request: PreparedRequest,
  options: SignRequestOptions,
): Promise<PreparedRequest> {
  const url = new URL(request.url)
  // Names in lower case (a kind's hook may have written `Content-Type`), in a fresh prototype-less
  // record; the request object stays the same, for a kind that remembers what it signed.
  const headers: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase()
    if (!signatureHeaders.includes(lower)) headers[lower] = value // lookup-safe: a prototype-less record
  }
  request.headers = headers
  const scope: SigV4Scope = {
    region: options.region,
    service: options.service,
    amzDate: amzDateOf(options.now),
  }
  headers['x-amz-date'] = scope.amzDate
  const token = options.credentials.sessionToken
  if (token !== undefined && token !== '') headers['x-amz-security-token'] = token
  const signed: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'host' && isSignedHeader(name)) signed[name] = value // lookup-safe: a prototype-less record
  }
  signed.host = url.host
  const input: CanonicalInput = {
    method: request.method,
    path: url.pathname,
    query: url.search.slice(1),
    headers: signed,
    bodyHash: await sha256Hex(request.body),
  }
  headers.authorization = await authorizationOf(input, options.credentials, scope, options.keys)
  return request
}
