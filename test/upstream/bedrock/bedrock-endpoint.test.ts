import { describe, expect, it } from 'vitest'
import { matchModelProfile, normalizeModelName } from '../../../src/models/match-profile'
import {
  bedrockBaseUrl,
  foundationModelId,
  modelPathSegment,
} from '../../../src/upstream/bedrock/endpoint'

describe("a Bedrock upstream's endpoint and model ids", () => {
  it("is the region's endpoint, else AWS's override variables, else the entry's baseUrl", () => {
    expect(bedrockBaseUrl({ region: 'eu-west-3' })).toBe(
      'https://bedrock-runtime.eu-west-3.amazonaws.com',
    )
    const env = {
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'http://127.0.0.1:4566/',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
    }
    expect(bedrockBaseUrl({ region: 'eu-west-3' }, env)).toBe('http://127.0.0.1:4566')
    expect(
      bedrockBaseUrl({ region: 'eu-west-3' }, { AWS_ENDPOINT_URL: 'http://127.0.0.1:1' }),
    ).toBe('http://127.0.0.1:1')
    expect(
      bedrockBaseUrl(
        { region: 'eu-west-3' },
        { ...env, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' },
      ),
    ).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com')
    expect(bedrockBaseUrl({ region: 'eu-west-3', baseUrl: 'http://127.0.0.1:2/' }, env)).toBe(
      'http://127.0.0.1:2',
    )
  })

  it("encodes an id once as one path segment: `:` and an ARN's `/`", () => {
    expect(modelPathSegment('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(
      'us.anthropic.claude-sonnet-4-5-20250929-v1%3A0',
    )
    expect(
      modelPathSegment(
        'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3',
      ),
    ).toBe(
      'arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fa1b2c3',
    )
  })

  it('finds the foundation model behind a system inference profile, and leaves other ids alone', () => {
    for (const prefix of ['us', 'eu', 'apac', 'jp', 'au', 'us-gov', 'global']) {
      expect(foundationModelId(`${prefix}.anthropic.claude-sonnet-4-5-20250929-v1:0`)).toBe(
        'anthropic.claude-sonnet-4-5-20250929-v1:0',
      )
    }
    expect(
      foundationModelId(
        'arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0',
      ),
    ).toBe('anthropic.claude-haiku-4-5-20251001-v1:0')
    const application =
      'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3'
    expect(foundationModelId(application)).toBe(application)
    expect(foundationModelId('anthropic.claude-sonnet-4-6')).toBe('anthropic.claude-sonnet-4-6')
  })

  it("finds a profile id's model profile and price name", () => {
    expect(normalizeModelName('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(
      'claude-sonnet-4-5-20250929',
    )
    expect(normalizeModelName('us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(
      'claude-sonnet-4-5-20250929',
    )
    expect(
      normalizeModelName(
        'arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-haiku-4-5-20251001-v1:0',
      ),
    ).toBe('claude-haiku-4-5-20251001')
    expect(matchModelProfile('us.anthropic.claude-sonnet-4-5-20250929-v1:0').maxOutputTokens).toBe(
      64_000,
    )
  })
})
