import { createHash, createHmac } from 'node:crypto'

/**
 * A SigV4 verifier written apart from the signer (src/upstream/aws/sigv4.ts) on `node:crypto`, as
 * AWS checks a request: from the raw request target as received (still percent-encoded), the
 * headers `SignedHeaders` names and the body bytes. It shares no code with the signer, so an
 * encoding mistake in one is not repeated in the other.
 */

/** What the verifier was given and what it concluded. */
export type Verdict = {
  ok: boolean
  /** Why it refused, in AWS's words where AWS has some. */
  reason?: string
  /** The canonical request it computed (AWS quotes it in its rejection). */
  canonical?: string
  accessKeyId?: string
  signedHeaders?: string[]
}

/** A request as a loopback server received it. */
export type ReceivedRequest = {
  method: string
  /** `req.url`: the path and query as sent. */
  target: string
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>
  body: Uint8Array | string
}

/** The settings a verifier checks against. */
export type VerifierSettings = {
  region: string
  service: string
  /** The secret of each access key id it knows. */
  secrets: Record<string, string>
  /** The session token an access key id must carry, if any. */
  tokens?: Record<string, string>
  /** The server's clock, epoch ms; a request dated more than 5 minutes away is refused. */
  now?: number
}

const rfc3986 = (text: string): string =>
  Array.from(Buffer.from(text, 'utf8'))
    .map((byte) => {
      const c = String.fromCharCode(byte)
      return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
    })
    .join('')

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function canonicalUri(rawPath: string): string {
  // Non-S3 services: remove dot segments and empty segments, then encode every segment of the
  // path as it was received once more (its `%` becomes `%25`).
  const out: string[] = []
  rawPath.split('/').forEach((segment) => {
    if (segment.length === 0 || segment === '.') return
    if (segment === '..') {
      out.pop()
      return
    }
    out.push(rfc3986(segment))
  })
  const trailing = out.length > 0 && rawPath.endsWith('/') ? '/' : ''
  return '/' + out.join('/') + trailing
}

function canonicalQueryString(rawQuery: string): string {
  if (!rawQuery) return ''
  const pairs = rawQuery
    .split('&')
    .map((part) => {
      const at = part.indexOf('=')
      const key = at === -1 ? part : part.substring(0, at)
      const value = at === -1 ? '' : part.substring(at + 1)
      return { key: rfc3986(safeDecode(key)), value: rfc3986(safeDecode(value)) }
    })
    .filter((pair) => pair.key.length > 0)
  // By code unit (the encoded forms are ASCII, so this is byte order), key first, then value.
  pairs.sort((a, b) =>
    a.key === b.key ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : a.key < b.key ? -1 : 1,
  )
  return pairs.map((pair) => pair.key + '=' + pair.value).join('&')
}

const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest()

/** Checks a received request's SigV4 signature. */
export function verifySigV4(request: ReceivedRequest, settings: VerifierSettings): Verdict {
  const header = (name: string): string | undefined => {
    const value = request.headers[name]
    return Array.isArray(value) ? value.join(',') : value
  }
  const authorization = header('authorization')
  if (authorization === undefined) return { ok: false, reason: 'MissingAuthenticationToken' }
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      authorization,
    )
  if (match === null) return { ok: false, reason: 'IncompleteSignatureException' }
  const [, accessKeyId, day, region, service, signedList, signature] = match as unknown as string[]
  const secret = settings.secrets[accessKeyId!]
  if (secret === undefined) return { ok: false, reason: 'UnrecognizedClientException', accessKeyId }
  if (region !== settings.region || service !== settings.service) {
    return {
      ok: false,
      reason: `Credential should be scoped to a valid region/service (${region}/${service})`,
    }
  }
  const amzDate = header('x-amz-date')
  if (amzDate === undefined || amzDate.slice(0, 8) !== day) {
    return { ok: false, reason: 'x-amz-date missing or not the day of the credential scope' }
  }
  if (settings.now !== undefined) {
    const when = Date.UTC(
      Number(amzDate.slice(0, 4)),
      Number(amzDate.slice(4, 6)) - 1,
      Number(amzDate.slice(6, 8)),
      Number(amzDate.slice(9, 11)),
      Number(amzDate.slice(11, 13)),
      Number(amzDate.slice(13, 15)),
    )
    if (Math.abs(when - settings.now) > 5 * 60_000)
      return { ok: false, reason: 'Signature expired' }
  }
  const signedHeaders = signedList!.split(';')
  if (!signedHeaders.includes('host')) return { ok: false, reason: 'host must be signed' }
  // Every x-amz-* header received must be signed, as AWS requires.
  for (const name of Object.keys(request.headers)) {
    if (name.startsWith('x-amz-') && !signedHeaders.includes(name)) {
      return { ok: false, reason: `${name} is not signed` }
    }
  }
  const expectedToken = settings.tokens?.[accessKeyId!]
  if (expectedToken !== undefined && header('x-amz-security-token') !== expectedToken) {
    return { ok: false, reason: 'The security token included in the request is invalid.' }
  }
  const queryAt = request.target.indexOf('?')
  const rawPath = queryAt === -1 ? request.target : request.target.substring(0, queryAt)
  const rawQuery = queryAt === -1 ? '' : request.target.substring(queryAt + 1)
  const headerBlock = signedHeaders
    .map((name) => name + ':' + (header(name) ?? '').replace(/\s+/g, ' ').trim() + '\n')
    .join('')
  const bodyDigest = createHash('sha256')
    .update(typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body)
    .digest('hex')
  const canonical = [
    request.method,
    canonicalUri(rawPath),
    canonicalQueryString(rawQuery),
    headerBlock,
    signedHeaders.join(';'),
    bodyDigest,
  ].join('\n')
  const scope = `${day}/${region}/${service}/aws4_request`
  const toSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonical, 'utf8').digest('hex'),
  ].join('\n')
  let key = hmac('AWS4' + secret, day!)
  key = hmac(key, region!)
  key = hmac(key, service!)
  key = hmac(key, 'aws4_request')
  const expected = createHmac('sha256', key).update(toSign, 'utf8').digest('hex')
  if (expected !== signature) {
    return {
      ok: false,
      reason: `The request signature we calculated does not match the signature you provided. The Canonical String for this request should have been '${canonical}'`,
      canonical,
      accessKeyId,
      signedHeaders,
    }
  }
  return { ok: true, canonical, accessKeyId, signedHeaders }
}
