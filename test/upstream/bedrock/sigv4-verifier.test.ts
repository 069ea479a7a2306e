import { describe, expect, it } from 'vitest'
import { canonicalRequest, signatureOf, verifySigV4 } from '../../helpers/bedrock/sigv4-verifier'

/**
 * The fake's SigV4 verifier, pinned to the worked example of an InvokeModel call (the same
 * signature from a stdlib Python signer, aws4fetch and `@smithy/signature-v4`), so that a signer
 * checked against it is checked against AWS's rules.
 */
const body =
  '{"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}'
const request = {
  method: 'POST',
  target: '/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke',
  headers: {
    'content-type': 'application/json',
    host: 'bedrock-runtime.us-east-1.amazonaws.com',
    'x-amz-date': '20150830T123600Z',
  } as Record<string, string>,
  body: Buffer.from(body),
}
const secret = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY'
const expected = 'b7f4cd1570f53af632dec3b13e4d33b6474826e3d9a1d75c75eed3a57db9008c'

describe('the fake SigV4 verifier', () => {
  it('recomputes the worked example: the id encoded once more in the canonical path', () => {
    const canonical = canonicalRequest(request, ['content-type', 'host', 'x-amz-date'])
    expect(canonical.split('\n')[1]).toBe(
      '/model/anthropic.claude-3-haiku-20240307-v1%253A0/invoke',
    )
    expect(canonical.split('\n').at(-1)).toBe(
      '4ce463b5c3d9ec921b15bafe17cf28cc4d188c93bf720c68e1dee3905c9fd0f8',
    )
    expect(
      signatureOf(canonical, secret, '20150830T123600Z', 'us-east-1', 'bedrock').signature,
    ).toBe(expected)
  })

  it("accepts the example's authorization and refuses a changed byte, key, date or region", () => {
    const signed = {
      ...request,
      headers: {
        ...request.headers,
        authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=${expected}`,
      },
    }
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: secret }
    const now = new Date('2015-08-30T12:38:00Z')
    const options = { region: 'us-east-1', service: 'bedrock', now }
    expect(verifySigV4(signed, credentials, options)).toBeUndefined()
    const tampered = verifySigV4(
      { ...signed, body: Buffer.from(body.replace('16', '17')) },
      credentials,
      options,
    )
    expect(tampered).toMatchObject({ status: 403, errorType: 'InvalidSignatureException' })
    expect(tampered?.message).toMatch(/^The request signature we calculated does not match/)
    expect(tampered?.message).toContain('%253A0')
    expect(
      verifySigV4(signed, { ...credentials, accessKeyId: 'AKIDOTHER' }, options),
    ).toMatchObject({ errorType: 'UnrecognizedClientException' })
    expect(
      verifySigV4(signed, credentials, { ...options, now: new Date('2015-08-30T12:42:00Z') })
        ?.message,
    ).toMatch(/^Signature expired/)
    expect(verifySigV4(signed, credentials, { ...options, region: 'eu-west-1' })).toMatchObject({
      errorType: 'InvalidSignatureException',
    })
    const doubleEncoded = {
      ...signed,
      target: '/model/anthropic.claude-3-haiku-20240307-v1%253A0/invoke',
    }
    expect(verifySigV4(doubleEncoded, credentials, options)).toMatchObject({
      errorType: 'InvalidSignatureException',
    })
  })
})
