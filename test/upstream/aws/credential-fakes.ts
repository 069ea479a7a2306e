import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { verifySigV4 } from './sigv4-verifier'

/**
 * Loopback fakes of AWS's credential endpoints, each enforcing the rules of the real one: STS
 * (AssumeRole signed with SigV4 for `sts`; AssumeRoleWithWebIdentity unsigned, with its token),
 * the container credentials endpoint (its authorization token), and IMDSv2 (a session token from
 * PUT before any GET). Each counts what it served and hands out credentials that expire.
 */

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void

async function serve(
  handler: Handler,
): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => handler(request, Buffer.concat(chunks).toString('utf8'), response))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const xmlError = (response: ServerResponse, status: number, code: string, message: string) => {
  response.writeHead(status, { 'content-type': 'text/xml' })
  response.end(
    `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`,
  )
}

/** The settings of the STS fake. */
export type StsFakeSettings = {
  region: string
  /** The keys allowed to call AssumeRole (access key id → secret), and their session tokens. */
  callers: Record<string, string>
  callerTokens?: Record<string, string>
  /** The role it lets be assumed. */
  roleArn: string
  /** The web identity token AssumeRoleWithWebIdentity accepts. */
  webIdentityToken?: string
  /** How long the credentials it issues live, ms. */
  lifetimeMs?: number
}

/** An STS fake; `issued` counts the sessions it handed out, `calls` every request's parameters. */
export async function startStsFake(settings: StsFakeSettings) {
  let issued = 0
  const calls: URLSearchParams[] = []
  const fake = await serve((request, body, response) => {
    const params = new URLSearchParams(body)
    calls.push(params)
    if (request.method !== 'POST' || request.url !== '/')
      return xmlError(response, 400, 'InvalidAction', 'POST / only')
    if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return xmlError(response, 400, 'InvalidParameterValue', 'form bodies only')
    }
    if (params.get('Version') !== '2011-06-15')
      return xmlError(response, 400, 'InvalidParameterValue', 'Version')
    const action = params.get('Action')
    if (action === 'AssumeRole') {
      const verdict = verifySigV4(
        { method: 'POST', target: request.url, headers: request.headers, body },
        {
          region: settings.region,
          service: 'sts',
          secrets: settings.callers,
          tokens: settings.callerTokens ?? {},
          now: Date.now(),
        },
      )
      if (!verdict.ok)
        return xmlError(response, 403, 'SignatureDoesNotMatch', verdict.reason ?? 'bad signature')
    } else if (action === 'AssumeRoleWithWebIdentity') {
      if (request.headers.authorization !== undefined)
        return xmlError(response, 400, 'InvalidAction', 'unsigned only')
      if (params.get('WebIdentityToken') !== settings.webIdentityToken) {
        return xmlError(
          response,
          400,
          'InvalidIdentityToken',
          'Couldn&apos;t retrieve verification key from your identity provider',
        )
      }
    } else return xmlError(response, 400, 'InvalidAction', `Could not find operation ${action}`)
    if (params.get('RoleArn') !== settings.roleArn)
      return xmlError(response, 403, 'AccessDenied', 'not authorized to perform: sts:AssumeRole')
    const sessionName = params.get('RoleSessionName') ?? ''
    if (!/^[\w+=,.@-]{2,64}$/.test(sessionName))
      return xmlError(response, 400, 'ValidationError', 'RoleSessionName')
    issued += 1
    const expiration = new Date(Date.now() + (settings.lifetimeMs ?? 3_600_000)).toISOString()
    response.writeHead(200, { 'content-type': 'text/xml' })
    response.end(
      `<${action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><${action}Result>` +
        `<Credentials><AccessKeyId>ASIAROLE${issued}</AccessKeyId><SecretAccessKey>role/secret+${issued}&amp;x</SecretAccessKey>` +
        `<SessionToken>role-session-token-${issued}</SessionToken><Expiration>${expiration}</Expiration></Credentials>` +
        `<AssumedRoleUser><Arn>${settings.roleArn}/${sessionName}</Arn><AssumedRoleId>AROA:${sessionName}</AssumedRoleId></AssumedRoleUser>` +
        `</${action}Result><ResponseMetadata><RequestId>r-${issued}</RequestId></ResponseMetadata></${action}Response>`,
    )
  })
  return {
    ...fake,
    calls,
    get issued() {
      return issued
    },
  }
}

/** A container credentials endpoint (ECS, EKS Pod Identity) that requires its token. */
export async function startContainerFake(settings: {
  path: string
  token?: string
  lifetimeMs?: number
}) {
  let issued = 0
  let refused = 0
  const fake = await serve((request, _body, response) => {
    if (request.method !== 'GET' || request.url !== settings.path) {
      response.writeHead(404).end()
      return
    }
    if (settings.token !== undefined && request.headers.authorization !== settings.token) {
      refused += 1
      response.writeHead(401, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ Code: 'Unauthorized', Message: 'bad token' }))
      return
    }
    issued += 1
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(
      JSON.stringify({
        AccessKeyId: `ASIACONTAINER${issued}`,
        SecretAccessKey: `container-secret-${issued}`,
        Token: `container-token-${issued}`,
        Expiration: new Date(Date.now() + (settings.lifetimeMs ?? 3_600_000)).toISOString(),
        RoleArn: 'arn:aws:iam::123456789012:role/task',
      }),
    )
  })
  return {
    ...fake,
    get issued() {
      return issued
    },
    get refused() {
      return refused
    },
  }
}

/** An IMDSv2 fake: a GET without the token from `PUT /latest/api/token` is a 401. */
export async function startImdsFake(settings: { role: string; lifetimeMs?: number }) {
  const tokens = new Set<string>()
  let issued = 0
  let tokenPuts = 0
  const requests: string[] = []
  const fake = await serve((request, _body, response) => {
    requests.push(`${request.method} ${request.url}`)
    if (request.method === 'PUT' && request.url === '/latest/api/token') {
      const ttl = Number(request.headers['x-aws-ec2-metadata-token-ttl-seconds'])
      if (!(ttl >= 1 && ttl <= 21600)) return void response.writeHead(400).end()
      tokenPuts += 1
      const token = `imds-token-${tokenPuts}`
      tokens.add(token)
      response.writeHead(200, {
        'content-type': 'text/plain',
        'x-aws-ec2-metadata-token-ttl-seconds': String(ttl),
      })
      return void response.end(token)
    }
    if (
      request.method !== 'GET' ||
      !tokens.has(String(request.headers['x-aws-ec2-metadata-token']))
    ) {
      return void response.writeHead(401).end()
    }
    const base = '/latest/meta-data/iam/security-credentials/'
    if (request.url === base) {
      response.writeHead(200, { 'content-type': 'text/plain' })
      return void response.end(settings.role)
    }
    if (request.url === `${base}${settings.role}`) {
      issued += 1
      response.writeHead(200, { 'content-type': 'text/plain' })
      return void response.end(
        JSON.stringify({
          Code: 'Success',
          LastUpdated: new Date().toISOString(),
          Type: 'AWS-HMAC',
          AccessKeyId: `ASIAIMDS${issued}`,
          SecretAccessKey: `imds-secret-${issued}`,
          Token: `imds-session-${issued}`,
          Expiration: new Date(Date.now() + (settings.lifetimeMs ?? 6 * 3_600_000)).toISOString(),
        }),
      )
    }
    response.writeHead(404).end()
  })
  return {
    ...fake,
    requests,
    get issued() {
      return issued
    },
  }
}
