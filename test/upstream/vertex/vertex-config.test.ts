import { describe, expect, it } from 'vitest'
import { createGateway } from '../../../src/index'
import { createPriceCatalogue } from '../../../src/pricing/price-catalogue'
import { matchModelProfile } from '../../../src/models/match-profile'
import { vertexKind } from '../../../src/upstream/vertex/kind'
import { vertexBaseUrl } from '../../../src/upstream/vertex/vertex-host'
import { prepareVertexAnthropic } from '../../../src/upstream/vertex/vertex-wires'
import { vertexAnthropicError, vertexGeminiError } from '../../../src/upstream/vertex/vertex-errors'
import { configError } from '../../helpers/config-error'
import { keys } from '../../helpers/gateway'

/** A Vertex entry in a group of `protocol`. */
function config(protocol: 'gemini' | 'anthropic' | 'openai', entry: Record<string, unknown>) {
  return {
    groups: [
      {
        id: 'v',
        protocol,
        models: ['m'],
        upstreams: [{ provider: 'vertex', project: 'p', region: 'us-east5', ...entry }],
      },
    ],
    keys: [{ key: keys.main }],
  }
}

describe('the vertex kind', () => {
  it('names Vertex hosts per location: global, the multi-regions and regions', () => {
    expect(vertexBaseUrl('global')).toBe('https://aiplatform.googleapis.com')
    expect(vertexBaseUrl('us')).toBe('https://aiplatform.us.rep.googleapis.com')
    expect(vertexBaseUrl('eu')).toBe('https://aiplatform.eu.rep.googleapis.com')
    expect(vertexBaseUrl('us-east5')).toBe('https://us-east5-aiplatform.googleapis.com')
  })

  it.each([
    ['global', 'https://aiplatform.googleapis.com/v1/projects/p/locations/global'],
    [
      'europe-west1',
      'https://europe-west1-aiplatform.googleapis.com/v1/projects/p/locations/europe-west1',
    ],
  ])('sends a %s Claude call to its host, signed with the callback token', async (region, base) => {
    const sent: { url: string; authorization: string | null }[] = []
    const provider = vertexKind.create(
      {
        provider: 'vertex',
        project: 'p',
        region,
        credentials: () => 'ya29.callback-token-0123456789',
      },
      {
        id: 'v#0',
        protocol: 'anthropic',
        now: Date.now,
        fetch: async (input, init) => {
          sent.push({
            url: String(input),
            authorization: new Headers(init?.headers).get('authorization'),
          })
          return new Response('{}', { headers: { 'content-type': 'application/json' } })
        },
      },
    )
    await provider.send({
      operation: 'messages',
      model: 'claude-opus-4-1@20250805',
      body: JSON.stringify({ model: 'claude-opus-4-1@20250805', max_tokens: 8, messages: [] }),
      headers: new Headers({ 'content-type': 'application/json' }),
      stream: false,
      signal: new AbortController().signal,
    })
    expect(sent).toEqual([
      {
        url: `${base}/publishers/anthropic/models/claude-opus-4-1@20250805:rawPredict`,
        authorization: 'Bearer ya29.callback-token-0123456789',
      },
    ])
    expect(provider.secrets).toContain('ya29.callback-token-0123456789')
  })

  it('is accepted in gemini and anthropic groups only', () => {
    const token = () => 't'
    expect(() => createGateway(config('gemini', { credentials: token }) as never)).not.toThrow()
    expect(() => createGateway(config('anthropic', { credentials: token }) as never)).not.toThrow()
    expect(configError(config('openai', { credentials: token })).message).toContain(
      '"vertex" upstream kind serves "gemini", "anthropic" groups, not "openai"',
    )
  })

  it('refuses a malformed service-account key at its field, never quoting it', () => {
    const secret =
      '-----BEGIN RSA PRIVATE KEY-----\nMIIsecretsecretsecret\n-----END RSA PRIVATE KEY-----'
    const error = configError(
      config('gemini', {
        serviceAccount: { type: 'service_account', client_email: 'a@b.iam', private_key: secret },
      }),
    )
    expect(error.issues).toEqual([
      {
        path: 'groups[0].upstreams[0].serviceAccount',
        message: expect.stringContaining('without a PKCS#8 PEM `private_key`'),
      },
    ])
    expect(error.message).not.toContain('MIIsecret')
    expect(configError(config('gemini', { serviceAccount: '{"type":' })).issues[0]).toEqual({
      path: 'groups[0].upstreams[0].serviceAccount',
      message: 'the service-account key is not valid JSON',
    })
    expect(
      configError(config('gemini', { serviceAccount: { type: 'external_account' } })).issues[0]!
        .message,
    ).toContain('external_account')
  })

  it('refuses a key file path where the runtime reads no files, and no credentials at all', () => {
    expect(configError(config('gemini', { serviceAccount: '/keys/sa.json' })).issues[0]).toEqual({
      path: 'groups[0].upstreams[0].serviceAccount',
      message: expect.stringContaining('this runtime reads no files'),
    })
    expect(configError(config('gemini', {})).issues[0]!.message).toContain(
      'a Vertex upstream needs credentials',
    )
  })

  it('checks project and region', () => {
    const error = configError(
      config('gemini', { credentials: () => 't', region: 'US East', project: 'a/b' }),
    )
    expect(error.issues.map((issue) => issue.path).sort()).toEqual([
      'groups[0].upstreams[0].project',
      'groups[0].upstreams[0].region',
    ])
  })
})

describe('Vertex model ids', () => {
  it('find the profiles and prices of their models', () => {
    for (const [vertexId, plain] of [
      ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
      ['claude-haiku-4-5@20251001', 'claude-haiku-4-5'],
      ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ] as const) {
      expect(matchModelProfile(vertexId).family).toBe(matchModelProfile(plain).family)
      expect(matchModelProfile(vertexId).family).not.toBe('unknown')
      const prices = createPriceCatalogue()
      expect(prices.lookup(vertexId)).toBeDefined()
      expect(prices.lookup(vertexId)).toEqual(prices.lookup(plain))
    }
  })
})

describe("Claude's body on Vertex", () => {
  const prepared = (body: string, operation: 'messages' | 'count-tokens' = 'messages') =>
    prepareVertexAnthropic(
      { url: 'u', method: 'POST', headers: { 'anthropic-version': '2023-06-01' }, body },
      {
        operation,
        model: 'claude-sonnet-4-5@20250929',
        body,
        headers: new Headers(),
        stream: false,
        signal: new AbortController().signal,
      },
    )

  it.each([
    [
      'the model first',
      '{"model":"claude-sonnet-4-5@20250929","max_tokens":8,"messages":[{"role":"user","content":"say \\"model\\""}]}',
    ],
    [
      'the model later',
      '{"max_tokens":8,"model":"x","messages":[{"role":"user","content":"say \\"model\\""}]}',
    ],
    [
      'an escaped model',
      '{"model":"a\\"b","max_tokens":8,"messages":[{"role":"user","content":"say \\"model\\""}]}',
    ],
    [
      'a version already',
      '{"model":"x","anthropic_version":"bedrock-2023-05-31","max_tokens":8,"messages":[{"role":"user","content":"say \\"model\\""}]}',
    ],
  ])('with %s: the version in, the model out, the rest unchanged', (_, body) => {
    const request = prepared(body)
    expect(JSON.parse(request.body)).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'say "model"' }],
    })
    expect(request.headers['anthropic-version']).toBeUndefined()
  })

  it('keeps the model for counting', () => {
    const request = prepared('{"model":"x","messages":[]}', 'count-tokens')
    expect(JSON.parse(request.body)).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      messages: [],
      model: 'claude-sonnet-4-5@20250929',
    })
  })
})

describe('Vertex errors', () => {
  it("are Anthropic's shape for Claude clients: Google's statuses mapped, HTML pages described", () => {
    expect(
      vertexAnthropicError(
        {
          error: {
            code: 429,
            message: 'Quota exceeded for aiplatform.googleapis.com.',
            status: 'RESOURCE_EXHAUSTED',
          },
        },
        429,
      ),
    ).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Quota exceeded for aiplatform.googleapis.com.' },
    })
    expect(
      vertexAnthropicError(
        [
          {
            error: { code: 404, message: 'Publisher Model `x` was not found', status: 'NOT_FOUND' },
          },
        ],
        404,
      ),
    ).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'Publisher Model `x` was not found' },
    })
    const anthropic = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
    expect(vertexAnthropicError(anthropic, 529)).toBe(anthropic)
    expect(
      vertexAnthropicError(
        '<!DOCTYPE html><html><title>Error 404 (Not Found)!!1</title></html>',
        404,
      ),
    ).toEqual({
      type: 'error',
      error: {
        type: 'not_found_error',
        message:
          'Vertex AI answered 404 with a non-JSON body (a wrong region, host or model id?): Error 404 (Not Found)!!1.',
      },
    })
  })

  it("are Google's shape for Gemini clients", () => {
    const google = {
      error: { code: 403, message: 'Permission denied', status: 'PERMISSION_DENIED' },
    }
    expect(vertexGeminiError(google, 403)).toBe(google)
    expect(vertexGeminiError([google], 403)).toBe(google)
    expect(vertexGeminiError('<html></html>', 404)).toEqual({
      error: {
        code: 404,
        message: 'Vertex AI answered 404 with a non-JSON body (a wrong region, host or model id?).',
        status: 'NOT_FOUND',
      },
    })
  })
})
