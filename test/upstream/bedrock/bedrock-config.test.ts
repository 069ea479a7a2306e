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
    const twice = configError(
      config({
        provider: 'bedrock',
        region: 'us-east-1',
        apiKey: 'k',
        accessKeyId: 'AKID',
        secretAccessKey: 's',
      }),
    )
    expect(twice.message).toContain(
      'groups[0].upstreams[0].apiKey: give either "apiKey" (a Bedrock API key) or "accessKeyId" and "secretAccessKey", not both',
    )
    const half = configError(
      config({ provider: 'bedrock', region: 'us-east-1', accessKeyId: 'AKID' }),
    )
    expect(half.message).toContain(
      'groups[0].upstreams[0].secretAccessKey: "accessKeyId" needs its "secretAccessKey"',
    )
    const orphan = configError(
      config({ provider: 'bedrock', region: 'us-east-1', sessionToken: 't' }),
    )
    expect(orphan.message).toContain(
      'groups[0].upstreams[0].accessKeyId: "sessionToken" needs its "accessKeyId"',
    )
    const role = configError(
      config({
        provider: 'bedrock',
        region: 'us-east-1',
        apiKey: 'k',
        roleArn: 'arn:aws:iam::123456789012:role/r',
      }),
    )
    expect(role.message).toContain(
      'groups[0].upstreams[0].roleArn: "roleArn" is assumed with AWS credentials, not with an "apiKey"',
    )
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
      'groups[0].upstreams[0].provider: the "bedrock" upstream kind serves "anthropic" groups, not "gemini"',
    )
  })
})
