import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  authorizationOf,
  canonicalRequest,
  SigningKeys,
  signRequest,
  uriEncode,
} from '../../../src/upstream/aws/sigv4'
import { sha256Hex } from '../../../src/upstream/aws/web-crypto'
import { bedrockExample, suiteCredentials, suiteScope, suiteVectors } from './fixtures/sigv4-suite'
import { verifySigV4 } from './sigv4-verifier'

const suiteTime = Date.UTC(2015, 7, 30, 12, 36, 0)

describe("SigV4 against AWS's test suite", () => {
  for (const vector of suiteVectors) {
    it(vector.name, async () => {
      const query = vector.query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&')
      const input = {
        method: vector.method,
        path: vector.path,
        query,
        headers: vector.headers,
        bodyHash: await sha256Hex(vector.body),
      }
      expect(await authorizationOf(input, suiteCredentials, suiteScope)).toBe(vector.authorization)
    })
  }

  it('signs the Bedrock example of cloud-upstreams.md: `:` sent as %3A, signed as %253A', async () => {
    const request = {
      url: bedrockExample.url,
      method: 'POST',
      headers: { 'content-type': 'application/json' } as Record<string, string>,
      body: bedrockExample.body,
    }
    await signRequest(request, {
      credentials: suiteCredentials,
      region: 'us-east-1',
      service: 'bedrock',
      now: suiteTime,
    })
    expect(request.headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=${bedrockExample.signature}`,
    )
    expect(request.url).toBe(bedrockExample.url) // the wire path is untouched: %3A once
    const url = new URL(request.url)
    expect(
      canonicalRequest({
        method: 'POST',
        path: url.pathname,
        query: '',
        headers: {
          'content-type': 'application/json',
          host: url.host,
          'x-amz-date': '20150830T123600Z',
        },
        bodyHash: await sha256Hex(bedrockExample.body),
      }),
    ).toBe(bedrockExample.canonicalRequest)
  })
})

describe('signRequest', () => {
  const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret/KEY+test' }
  const settings = {
    region: 'eu-west-3',
    service: 'bedrock',
    secrets: { AKIDTEST: credentials.secretAccessKey },
  }

  it('signs host with its port, content-type and x-amz-*, never the forwarded headers', async () => {
    const request = {
      url: 'http://127.0.0.1:8123/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Ainference-profile%2Fus.x/converse',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'client/1.0',
        'x-forwarded-for': '10.0.0.1',
        'anthropic-beta': 'x',
        authorization: 'Bearer stale',
        host: 'forwarded.example',
        'x-amz-security-token': 'stale-token',
      } as Record<string, string>,
      body: '{"messages":[]}',
    }
    await signRequest(request, {
      credentials,
      region: 'eu-west-3',
      service: 'bedrock',
      now: Date.now(),
    })
    expect(request.headers['x-amz-security-token']).toBeUndefined()
    expect(request.headers.host).toBeUndefined() // the transport sends the URL's host, as signed
    const received = {
      method: 'POST',
      target: new URL(request.url).pathname,
      headers: { ...request.headers, host: '127.0.0.1:8123' } as Record<string, string>,
      body: request.body,
    }
    const verdict = verifySigV4(received, { ...settings, now: Date.now() })
    expect(verdict).toMatchObject({
      ok: true,
      signedHeaders: ['content-type', 'host', 'x-amz-date'],
    })
    // A proxy may rewrite what is not signed.
    received.headers['user-agent'] = 'proxy/2'
    expect(verifySigV4(received, settings).ok).toBe(true)
  })

  it('signs a header a hook named in another case, under its lower-case name', async () => {
    const request = {
      url: 'https://bedrock-runtime.eu-west-3.amazonaws.com/model/m/invoke',
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Amz-Target': 'Bedrock.Invoke' } as Record<
        string,
        string
      >,
      body: '{}',
    }
    const same = request
    await signRequest(request, {
      credentials,
      region: 'eu-west-3',
      service: 'bedrock',
      now: Date.now(),
    })
    expect(request).toBe(same)
    expect(Object.keys(request.headers).sort()).toEqual([
      'authorization',
      'content-type',
      'x-amz-date',
      'x-amz-target',
    ])
    const verdict = verifySigV4(
      {
        method: 'POST',
        target: '/model/m/invoke',
        headers: { ...request.headers, host: 'bedrock-runtime.eu-west-3.amazonaws.com' },
        body: '{}',
      },
      settings,
    )
    expect(verdict).toMatchObject({
      ok: true,
      signedHeaders: ['content-type', 'host', 'x-amz-date', 'x-amz-target'],
    })
  })

  it('signs the session token', async () => {
    const session = { ...credentials, sessionToken: 'FwoGZXIvYXdzEJr//////////token' }
    const request = {
      url: 'https://bedrock-runtime.eu-west-3.amazonaws.com/model/m/invoke',
      method: 'POST',
      headers: {} as Record<string, string>,
      body: '{}',
    }
    await signRequest(request, {
      credentials: session,
      region: 'eu-west-3',
      service: 'bedrock',
      now: Date.now(),
    })
    const verdict = verifySigV4(
      {
        method: 'POST',
        target: '/model/m/invoke',
        headers: { ...request.headers, host: 'bedrock-runtime.eu-west-3.amazonaws.com' },
        body: '{}',
      },
      { ...settings, tokens: { AKIDTEST: session.sessionToken } },
    )
    expect(verdict).toMatchObject({
      ok: true,
      signedHeaders: ['host', 'x-amz-date', 'x-amz-security-token'],
    })
  })

  const segment = fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      '0',
      ':',
      '/',
      '.',
      '-',
      '_',
      '~',
      ' ',
      '%',
      'é',
      '@',
      '+',
      '!',
      '*',
    ),
    minLength: 1,
    maxLength: 24,
  })
  const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/)
  const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,30}[\x21-\x7e])?$/)

  it('matches an independent verifier for any model id, headers and body (property)', async () => {
    const keys = new SigningKeys()
    await fc.assert(
      fc.asyncProperty(
        segment,
        fc.dictionary(headerName, headerValue, { maxKeys: 6 }),
        fc.dictionary(
          headerName.map((n) => `x-amz-${n}`),
          headerValue,
          { maxKeys: 3 },
        ),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
        async (modelId, forwarded, amz, body, now) => {
          const headers: Record<string, string> = Object.create(null)
          Object.assign(headers, forwarded, amz, { 'content-type': 'application/json' })
          delete headers.host
          const request = {
            url: `http://127.0.0.1:9000/model/${encodeURIComponent(modelId)}/invoke`,
            method: 'POST',
            headers,
            body,
          }
          await signRequest(request, {
            credentials,
            region: 'eu-west-3',
            service: 'bedrock',
            now,
            keys,
          })
          const verdict = verifySigV4(
            {
              method: 'POST',
              target: new URL(request.url).pathname,
              headers: { ...request.headers, host: '127.0.0.1:9000' },
              body,
            },
            { ...settings, now },
          )
          expect(verdict.reason).toBeUndefined()
          for (const name of verdict.signedHeaders ?? []) {
            expect(name === 'host' || name === 'content-type' || name.startsWith('x-amz-')).toBe(
              true,
            )
          }
          // The body is covered: any change is refused.
          const tampered = verifySigV4(
            {
              method: 'POST',
              target: new URL(request.url).pathname,
              headers: { ...request.headers, host: '127.0.0.1:9000' },
              body: `${body}x`,
            },
            settings,
          )
          expect(tampered.ok).toBe(false)
        },
      ),
      { numRuns: 150 },
    )
  })
})
