import { describe, expect, it } from 'vitest'
import { createGateway } from '../../../src/index'
import { configError } from '../../helpers/config-error'

/** A config with one group of `protocol` whose one upstream is `entry`. */
const config = (entry: object, protocol = 'anthropic') => ({
  groups: [{ id: 'b', protocol, models: ['claude'], upstreams: [entry] }],
  keys: [{ key: 'sk-test-main-0123456789abcdefABCDEF' }],
})

describe('a bedrock upstream entry', () => {
  it('is accepted with a region and a Bedrock API key, or with AWS keys', () => {
    expect(() =>
      createGateway(
        config({ provider: 'bedrock', region: 'us-east-1', apiKey: 'ABSKexample' }) as never,
      ),
    ).not.toThrow()
    expect(() =>
      createGateway(
        config({
          provider: 'bedrock',
          region: 'eu-central-1',
          accessKeyId: 'AKIDEXAMPLE',
          secretAccessKey: 'secret',
          sessionToken: 'token',
          baseUrl: 'http://127.0.0.1:9',
        }) as never,
      ),
    ).not.toThrow()
  })

  it('needs a region, named as the field', () => {
    expect(configError(config({ provider: 'bedrock', apiKey: 'ABSKexample' })).message).toContain(
      'groups[0].upstreams[0].region: a bedrock upstream needs its AWS "region" (for example "us-east-1")',
    )
    expect(
      configError(config({ provider: 'bedrock', region: 'virginia', apiKey: 'k' })).message,
    ).toContain('groups[0].upstreams[0].region: expected an AWS region such as "us-east-1"')
  })

  it('refuses credentials given twice or by half, at the field', () => {
    const entry = (fields: object) =>
      config({ provider: 'bedrock', region: 'us-east-1', ...fields })
    expect(
      configError(entry({ apiKey: 'k', accessKeyId: 'AKID', secretAccessKey: 's' })).message,
    ).toContain(
      'groups[0].upstreams[0].accessKeyId: accessKeyId given with apiKey: a Bedrock API key is sent alone as a bearer token, never with SigV4 credentials',
    )
    expect(configError(entry({ accessKeyId: 'AKID' })).message).toContain(
      'groups[0].upstreams[0].secretAccessKey: accessKeyId needs its secretAccessKey',
    )
    expect(configError(entry({ sessionToken: 't' })).message).toContain(
      'groups[0].upstreams[0].sessionToken: sessionToken is the session of accessKeyId/secretAccessKey',
    )
    expect(
      configError(entry({ apiKey: 'k', roleArn: 'arn:aws:iam::123456789012:role/r' })).message,
    ).toContain('groups[0].upstreams[0].roleArn: roleArn given with apiKey')
  })

  it('names accessKeyId when the entry gives no credentials and the runtime has no AWS chain', () => {
    expect(configError(config({ provider: 'bedrock', region: 'us-east-1' })).issues).toEqual([
      {
        path: 'groups[0].upstreams[0].accessKeyId',
        message: expect.stringMatching(
          /^no AWS credentials: give accessKeyId\/secretAccessKey, apiKey or a credentials callback/,
        ),
      },
    ])
  })

  it('takes a credentials callback in code', () => {
    const credentials = async () => ({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    })
    expect(() =>
      createGateway(config({ provider: 'bedrock', region: 'us-east-1', credentials }) as never),
    ).not.toThrow()
    expect(
      configError(config({ provider: 'bedrock', region: 'us-east-1', credentials: 'AKID' }))
        .message,
    ).toContain('groups[0].upstreams[0].credentials: expected a function returning AWS credentials')
  })

  it('refuses an unknown field and a group it does not serve', () => {
    expect(
      configError(config({ provider: 'bedrock', region: 'us-east-1', apiKey: 'k', modelId: 'x' }))
        .message,
    ).toMatch(/upstreams\[0\].*modelId/)
    expect(
      configError(config({ provider: 'bedrock', region: 'us-east-1', apiKey: 'k' }, 'gemini'))
        .message,
    ).toContain(
      'groups[0].upstreams[0].provider: the "bedrock" upstream kind serves "anthropic", "converse" groups, not "gemini"',
    )
  })
})
