import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAwsAuth } from '../../../src/upstream/aws/aws-auth'
import { assumeRoleWithWebIdentity } from '../../../src/upstream/aws/sts'
import { elementText } from '../../../src/upstream/aws/sts-xml'
import type { PreparedRequest } from '../../../src/upstream/prepared-request'
import type { UpstreamCall } from '../../../src/upstream/provider'
import { startStsFake } from './credential-fakes'
import { verifySigV4 } from './sigv4-verifier'

const region = 'eu-central-1'
const roleArn = 'arn:aws:iam::123456789012:role/bedrock-caller'
const caller = { accessKeyId: 'AKIDCALLER', secretAccessKey: 'caller/secret+key' }
const call = {} as UpstreamCall
const request = (): PreparedRequest => ({
  url: 'https://bedrock-runtime.eu-central-1.amazonaws.com/model/m/converse',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{}',
})

describe('roleArn: STS AssumeRole', () => {
  let sts: Awaited<ReturnType<typeof startStsFake>>
  beforeAll(async () => {
    sts = await startStsFake({
      region,
      callers: { AKIDCALLER: caller.secretAccessKey },
      roleArn,
      webIdentityToken: 'eyJ.web.identity',
    })
  })
  afterAll(() => sts.close())

  it("assumes the role with the entry's keys (signed for sts), once for a burst, and signs with the role's", async () => {
    const auth = createAwsAuth(
      { region, ...caller, roleArn },
      { now: Date.now, env: { AWS_ENDPOINT_URL_STS: sts.url } },
    )
    const signed = await Promise.all(Array.from({ length: 200 }, () => auth.sign(request(), call)))
    expect(sts.issued).toBe(1)
    const params = sts.calls.at(-1)!
    expect(Object.fromEntries(params)).toEqual({
      Action: 'AssumeRole',
      Version: '2011-06-15',
      RoleArn: roleArn,
      RoleSessionName: 'model-gateway',
      DurationSeconds: '3600',
    })
    const one = signed[0]!
    expect(one.headers['x-amz-security-token']).toBe('role-session-token-1')
    const verdict = verifySigV4(
      {
        method: 'POST',
        target: '/model/m/converse',
        headers: { ...one.headers, host: 'bedrock-runtime.eu-central-1.amazonaws.com' },
        body: '{}',
      },
      {
        region,
        service: 'bedrock',
        secrets: { ASIAROLE1: 'role/secret+1&x' },
        tokens: { ASIAROLE1: 'role-session-token-1' },
      },
    )
    expect(verdict.ok).toBe(true)
    // Both the role's session and the keys that assumed it are scrubbed.
    expect(auth.secrets()).toEqual(
      expect.arrayContaining(['role/secret+1&x', 'role-session-token-1', caller.secretAccessKey]),
    )
    expect(auth.renewal).toBeDefined()
  })

  it("reports STS refusing as the upstream's failure, STS's code in the cause, no secret anywhere", async () => {
    const auth = createAwsAuth(
      { region, accessKeyId: 'AKIDCALLER', secretAccessKey: 'wrong-secret-0123', roleArn },
      { now: Date.now, env: { AWS_ENDPOINT_URL_STS: `${sts.url}/` } },
    )
    const failure = await Promise.resolve(auth.sign(request(), call)).then(
      () => undefined,
      (error: Error) => error,
    )
    // The client is told the credentials failed (502, failed over); STS's words are the cause.
    expect(failure).toMatchObject({
      code: 'upstream_error',
      status: 502,
      message: 'The AWS credentials of this upstream could not be obtained.',
    })
    const cause = (failure as Error & { cause: Error }).cause
    expect(cause.message).toMatch(/^AWS STS AssumeRole failed: SignatureDoesNotMatch/)
    expect(cause.message).not.toContain('wrong-secret-0123')
  })

  it('AssumeRoleWithWebIdentity is unsigned and carries the token', async () => {
    const credential = await assumeRoleWithWebIdentity({
      endpoint: sts.url,
      roleArn,
      webIdentityToken: 'eyJ.web.identity',
    })
    expect(credential.value.sessionToken).toMatch(/^role-session-token-\d+$/)
    expect(credential.expiresAt).toBeGreaterThan(Date.now() + 59 * 60_000)
    const refused = await assumeRoleWithWebIdentity({
      endpoint: sts.url,
      roleArn,
      webIdentityToken: 'eyJ.other',
    }).catch((error: Error) => error)
    expect((refused as Error).message).toBe(
      "AWS STS AssumeRoleWithWebIdentity failed: InvalidIdentityToken: Couldn't retrieve verification key from your identity provider",
    )
  })
})

describe('the STS XML reader', () => {
  it('reads the first element, decodes entities, and is not fooled by a missing close', () => {
    expect(elementText('<A><Code>Expired&amp;Token&#x21;</Code></A>', 'Code')).toBe(
      'Expired&Token!',
    )
    expect(elementText('<Code>never closed', 'Code')).toBeUndefined()
    expect(elementText('<CodeX>no</CodeX>', 'Code')).toBeUndefined()
    expect(elementText('<Code attr="1">yes</Code>', 'Code')).toBe('yes')
  })

  const escape = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

  it('gives back any escaped text, and never throws on garbage (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ maxLength: 200 }),
        (value, garbage) => {
          const xml = `${garbage.replace(/<\/?Secret/g, '')}<Credentials><Secret>${escape(value)}</Secret></Credentials>`
          expect(elementText(xml, 'Secret')).toBe(value.trim())
          expect(() => elementText(garbage, 'Code')).not.toThrow()
        },
      ),
      { numRuns: 300 },
    )
  })
})
