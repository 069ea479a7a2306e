import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createHttpProvider, type GatewayConfig } from '../../../src/index'
import { createNodeFetch } from '../../../src/node/index'
import { createAwsAuth, isExpiredTokenAnswer } from '../../../src/upstream/aws/aws-auth'
import {
  awsCredentialProblems,
  AwsCredentialsConfigError,
} from '../../../src/upstream/aws/aws-credential-problems'
import type { PreparedRequest } from '../../../src/upstream/prepared-request'
import type { UpstreamCall } from '../../../src/upstream/provider'
import { fetchThrough } from '../../helpers/gateway'
import { startSigV4Upstream } from './sigv4-upstream'
import { verifySigV4 } from './sigv4-verifier'

const region = 'us-west-2'
const keyPair = {
  accessKeyId: 'AKIDSTATIC0000000001',
  secretAccessKey: 'static/Secret+Key0123456789abcdefghijkl',
}
const call = {} as UpstreamCall
const request = (): PreparedRequest => ({
  url: 'https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.1.1.1' },
  body: '{"max_tokens":1}',
})
const verify = (signed: PreparedRequest, tokens?: Record<string, string>) =>
  verifySigV4(
    {
      method: signed.method,
      target: new URL(signed.url).pathname,
      headers: { ...signed.headers, host: new URL(signed.url).host },
      body: signed.body,
    },
    {
      region,
      service: 'bedrock',
      secrets: { [keyPair.accessKeyId]: keyPair.secretAccessKey, AKIDSESSION: 'session-secret' },
      ...(tokens ? { tokens } : {}),
    },
  )

describe('createAwsAuth', () => {
  it('signs with static keys, as the verifier recomputes, and lists the secret', async () => {
    const auth = createAwsAuth({ region, ...keyPair }, { now: Date.now })
    expect(auth.secrets()).toEqual([keyPair.secretAccessKey]) // before any call too
    const signed = await auth.sign(request(), call)
    expect(verify(signed)).toMatchObject({
      ok: true,
      signedHeaders: ['content-type', 'host', 'x-amz-date'],
    })
    expect(auth.secrets()).toContain(keyPair.secretAccessKey)
    expect(auth.renewal).toBeUndefined() // long-lived keys cannot be renewed
  })

  it('signs a static session token', async () => {
    const auth = createAwsAuth(
      {
        region,
        accessKeyId: 'AKIDSESSION',
        secretAccessKey: 'session-secret',
        sessionToken: 'IQoJb3JpZ2luX2VjE-token',
      },
      { now: Date.now },
    )
    const signed = await auth.sign(request(), call)
    expect(signed.headers['x-amz-security-token']).toBe('IQoJb3JpZ2luX2VjE-token')
    expect(verify(signed, { AKIDSESSION: 'IQoJb3JpZ2luX2VjE-token' }).ok).toBe(true)
    expect(auth.secrets()).toEqual(['session-secret', 'IQoJb3JpZ2luX2VjE-token'])
  })

  it('sends a Bedrock API key as a bearer token, with no SigV4 header', async () => {
    const auth = createAwsAuth(
      { region, apiKey: 'ABSKQmVkcm9ja0FQSUtleS1example' },
      { now: Date.now },
    )
    const signed = await auth.sign(
      { ...request(), headers: { 'x-amz-date': 'stale', 'content-type': 'application/json' } },
      call,
    )
    expect(signed.headers.authorization).toBe('Bearer ABSKQmVkcm9ja0FQSUtleS1example')
    expect(signed.headers['x-amz-date']).toBeUndefined()
    expect(auth.secrets()).toEqual(['ABSKQmVkcm9ja0FQSUtleS1example'])
  })

  it('refuses credentials given twice, or half given, naming the field', () => {
    const fields = (settings: Parameters<typeof awsCredentialProblems>[0]) =>
      awsCredentialProblems(settings).map((problem) => problem.field)
    expect(fields({ region, apiKey: 'k', accessKeyId: 'a', secretAccessKey: 's' })).toEqual([
      'accessKeyId',
      'secretAccessKey',
    ])
    expect(fields({ region, apiKey: 'k', roleArn: 'arn:aws:iam::1:role/r' })).toEqual(['roleArn'])
    expect(fields({ region, accessKeyId: 'a' })).toEqual(['secretAccessKey'])
    expect(fields({ region, secretAccessKey: 's' })).toEqual(['accessKeyId'])
    expect(fields({ region, sessionToken: 't' })).toEqual(['sessionToken'])
    expect(fields({ region, ...keyPair, credentials: async () => keyPair })).toEqual([
      'credentials',
    ])
    expect(fields({ accessKeyId: 'a', secretAccessKey: 's' })).toEqual(['region'])
    expect(fields({ region: 'us-east-1.evil.example/x', ...keyPair })).toEqual(['region'])
    expect(fields({ region: 'us-gov-west-1', ...keyPair })).toEqual([])
    expect(fields({ region, ...keyPair, roleArn: '' })).toEqual(['roleArn'])
    expect(
      fields({ region, ...keyPair, sessionToken: 't', roleArn: 'arn:aws:iam::1:role/r' }),
    ).toEqual([])
  })

  it('without credentials and without a chain, is a config error that says what to give', () => {
    const attempt = () => createAwsAuth({ region }, { now: Date.now })
    expect(attempt).toThrow(AwsCredentialsConfigError)
    expect(attempt).toThrow(
      /accessKeyId: no AWS credentials: give accessKeyId\/secretAccessKey, apiKey or a credentials callback; on Node pass cloudCredentials: nodeCloudCredentials\(\)/,
    )
  })

  it('fetches once for 200 concurrent signs, across two upstreams on the same chain', async () => {
    let fetches = 0
    const aws = async () => {
      fetches += 1
      await new Promise((resolve) => setTimeout(resolve, 20))
      return {
        value: {
          accessKeyId: 'AKIDSESSION',
          secretAccessKey: 'session-secret',
          sessionToken: `chain-${fetches}`,
        },
        expiresAt: Date.now() + 3_600_000,
      }
    }
    const context = { now: Date.now, cloudCredentials: { aws } }
    const first = createAwsAuth({ region }, context)
    const second = createAwsAuth({ region }, context)
    const signed = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? first : second).sign(request(), call),
      ),
    )
    expect(fetches).toBe(1)
    expect(signed.every((one) => verify(one, { AKIDSESSION: 'chain-1' }).ok)).toBe(true)
    expect(first.secrets()).toEqual(['session-secret', 'chain-1'])
  })

  it('refreshes a callback credential once inside the last 5 minutes, and normalises its expiration', async () => {
    let clock = Date.UTC(2026, 0, 1, 12)
    let fetches = 0
    const credentials = async () => {
      fetches += 1
      return {
        accessKeyId: 'AKIDSESSION',
        secretAccessKey: 'session-secret',
        sessionToken: `cb-${fetches}`,
        expiration: new Date(clock + 60 * 60_000),
      }
    }
    const auth = createAwsAuth({ region, credentials }, { now: () => clock })
    await Promise.all(Array.from({ length: 50 }, () => auth.sign(request(), call)))
    expect(fetches).toBe(1)
    clock += 54 * 60_000 // 6 minutes left: still served from the cache
    await auth.sign(request(), call)
    expect(fetches).toBe(1)
    clock += 2 * 60_000 // 4 minutes left: refreshed, once for the burst
    const burst = await Promise.all(Array.from({ length: 50 }, () => auth.sign(request(), call)))
    expect(fetches).toBe(2)
    expect(new Set(burst.map((one) => one.headers['x-amz-security-token']))).toEqual(
      new Set(['cb-2']),
    )
  })

  it("knows AWS's expired-token answers, and no other refusal", () => {
    expect(
      isExpiredTokenAnswer(
        403,
        '{"message":"The security token included in the request is expired"}',
      ),
    ).toBe(true)
    expect(isExpiredTokenAnswer(400, '<Error><Code>ExpiredToken</Code></Error>')).toBe(true)
    expect(
      isExpiredTokenAnswer(
        403,
        '{"message":"The security token included in the request is invalid."}',
      ),
    ).toBe(false)
    expect(
      isExpiredTokenAnswer(
        403,
        '{"message":"Signature expired: 20150830T123600Z is now earlier than 20150830T124100Z (20150830T124600Z - 5 min.)"}',
      ),
    ).toBe(false)
  })
})

describe('an expired session token, through createHttpProvider', () => {
  const upstream = startSigV4Upstream({
    region,
    service: 'bedrock',
    secrets: { AKIDSESSION: 'session-secret' },
  })
  let baseUrl = ''
  beforeAll(async () => {
    baseUrl = `${await upstream.listen()}/v1`
  })
  afterAll(() => upstream.close())

  for (const transport of ['fetch', 'node'] as const) {
    it(`is renewed once and the call retried; the burst of refusals fetches once (${transport} transport)`, async () => {
      const before = upstream.refusedExpired
      let fetches = 0
      const credentials = async () => {
        fetches += 1
        return {
          accessKeyId: 'AKIDSESSION',
          secretAccessKey: 'session-secret',
          sessionToken: `tok-${transport}-${fetches}`,
          expiration: Date.now() + 3_600_000,
        }
      }
      const auth = createAwsAuth({ region, credentials }, { now: Date.now })
      const provider = createHttpProvider({
        id: 'aws-signed',
        protocol: 'openai',
        baseUrl,
        ...(transport === 'node' ? { fetch: createNodeFetch() } : {}),
        sign: auth.sign,
        secrets: auth.secrets,
        renewal: auth.renewal,
      })
      const gateway = createGateway({
        groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [provider] }],
        keys: [{ key: 'sk-aws-auth-test-0123456789' }],
      } as unknown as GatewayConfig)
      const client = new OpenAI({
        apiKey: 'sk-aws-auth-test-0123456789',
        baseURL: 'http://gateway.test/v1',
        fetch: fetchThrough(gateway),
      })
      const ask = () =>
        client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })

      expect((await ask()).choices[0]!.message.content).toBe('signed')
      expect(fetches).toBe(1)
      upstream.expire(`tok-${transport}-1`) // AWS's clock says the session ended before the cache's did
      const answers = await Promise.all(Array.from({ length: 20 }, ask))
      expect(answers.every((answer) => answer.choices[0]!.message.content === 'signed')).toBe(true)
      expect(fetches).toBe(2)
      expect(upstream.refusedExpired - before).toBe(20)
      // Forwarded client headers reached the upstream unsigned.
      const last = upstream.seen.at(-1)!
      expect(String(last.headers.authorization)).toMatch(
        /SignedHeaders=content-type;host;x-amz-date;x-amz-security-token,/,
      )
    })
  }
})
