import { createHash, createHmac } from 'node:crypto'

/**
 * An AWS SigV4 verifier for the fakes, written from AWS's specification and independently of the
 * gateway's signer (node:crypto, its own canonicalisation): it recomputes the signature of a
 * request from what was received — the raw request target (still encoded), the headers the
 * request says it signed, the bytes of the body — and refuses a mismatch as AWS does.
 *
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 */

/** Credentials the fake knows. */
export type FakeAwsCredentials = {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string | undefined
}

/** A request as the fake received it. */
export type ReceivedRequest = {
  method: string
  /** The raw request target (`req.url`): path and query, as encoded on the wire. */
  target: string
  /** Header names in lower case; repeated headers joined with `,`. */
  headers: Record<string, string>
  body: Buffer
}

/** AWS's refusal: the status, the `x-amzn-errortype` and the message. */
export type SigV4Refusal = { status: number; errorType: string; message: string }

const hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()

/** RFC 3986 encoding of one path segment or query part, as SigV4 wants it (`~` kept). */
function awsEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

/**
 * The canonical request of a received request, for a service other than S3: the path's segments
 * each encoded once more than on the wire (`%3A` → `%253A`), the query sorted, the signed headers
 * lower-case with trimmed values, and the hash of the body.
 */
export function canonicalRequest(
  request: ReceivedRequest,
  signedHeaders: readonly string[],
): string {
  const [path = '/', query = ''] = request.target.split('?', 2)
  const canonicalPath = path
    .split('/')
    .map((segment) => awsEncode(segment))
    .join('/')
  const canonicalQuery = query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const [name = '', value = ''] = part.split('=', 2)
      return [awsEncode(decodeURIComponent(name)), awsEncode(decodeURIComponent(value))] as const
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
  const headerLines = signedHeaders.map(
    (name) => `${name}:${(request.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`,
  )
  return [
    request.method,
    canonicalPath,
    canonicalQuery,
    headerLines.join(''),
    signedHeaders.join(';'),
    request.headers['x-amz-content-sha256'] ?? hex(request.body),
  ].join('\n')
}

/** The signature of a canonical request with a secret, date, region and service. */
export function signatureOf(
  canonical: string,
  secretAccessKey: string,
  amzDate: string,
  region: string,
  service: string,
): { stringToSign: string; signature: string } {
  const day = amzDate.slice(0, 8)
  const scope = `${day}/${region}/${service}/aws4_request`
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonical)].join('\n')
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), service), 'aws4_request')
  return { stringToSign, signature: createHmac('sha256', key).update(stringToSign).digest('hex') }
}

const mismatch =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.'

/**
 * Verifies a SigV4-signed request as AWS does, or says why AWS would refuse it: unknown key
 * (`UnrecognizedClientException`), a session token missing or wrong, a date more than 5 minutes
 * off (`Signature expired`), unsigned `host` or `x-amz-date`, a body hash that is not the body's,
 * or a signature that is not the one recomputed (with the canonical string AWS would quote).
 */
export function verifySigV4(
  request: ReceivedRequest,
  credentials: FakeAwsCredentials,
  options: { region: string; service: string; now: Date },
): SigV4Refusal | undefined {
  const header = request.headers['authorization'] ?? ''
  const parsed =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      header,
    )
  if (parsed === null) {
    return {
      status: 403,
      errorType: 'IncompleteSignatureException',
      message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.`,
    }
  }
  const [, keyId, day, region, service, signedList, signature] = parsed as unknown as string[]
  if (keyId !== credentials.accessKeyId) {
    return {
      status: 403,
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    }
  }
  const token = request.headers['x-amz-security-token']
  if (credentials.sessionToken !== undefined && token !== credentials.sessionToken) {
    return {
      status: 403,
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    }
  }
  const signed = signedList!.split(';')
  const amzDate = request.headers['x-amz-date'] ?? ''
  if (
    !signed.includes('host') ||
    !signed.includes('x-amz-date') ||
    !/^\d{8}T\d{6}Z$/.test(amzDate)
  ) {
    return {
      status: 403,
      errorType: 'IncompleteSignatureException',
      message: 'The request must sign host and x-amz-date.',
    }
  }
  if (token !== undefined && !signed.includes('x-amz-security-token')) {
    return { status: 403, errorType: 'InvalidSignatureException', message: mismatch }
  }
  const sent = Date.parse(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  )
  if (Math.abs(options.now.getTime() - sent) > 5 * 60_000) {
    return {
      status: 403,
      errorType: 'InvalidSignatureException',
      message: `Signature expired: ${amzDate} is now earlier than ${options.now.toISOString()} (- 5 min.)`,
    }
  }
  const bodyHash = request.headers['x-amz-content-sha256']
  if (bodyHash !== undefined && bodyHash !== 'UNSIGNED-PAYLOAD' && bodyHash !== hex(request.body)) {
    return {
      status: 400,
      errorType: 'XAmzContentSHA256Mismatch',
      message: 'The provided x-amz-content-sha256 header does not match what was computed.',
    }
  }
  const canonical = canonicalRequest(request, signed)
  const expected = signatureOf(
    canonical,
    credentials.secretAccessKey,
    amzDate,
    options.region,
    options.service,
  )
  if (
    day !== amzDate.slice(0, 8) ||
    region !== options.region ||
    service !== options.service ||
    expected.signature !== signature
  ) {
    return {
      status: 403,
      errorType: 'InvalidSignatureException',
      message: `${mismatch}\n\nThe Canonical String for this request should have been\n'${canonical}'\n\nThe String-to-Sign should have been\n'${expected.stringToSign}'\n`,
    }
  }
  return undefined
}
