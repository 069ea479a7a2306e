import { describe, expect, it } from 'vitest'
import * as z from 'zod/mini'
import {
  createGateway,
  createHttpProvider,
  defineUpstreamKind,
  upstreamSpecificationVersion,
  type GatewayConfig,
} from '../../src/index'
import { configError } from '../helpers/config-error'

const converseKind = defineUpstreamKind({
  specificationVersion: upstreamSpecificationVersion,
  name: 'converse-test',
  protocols: ['converse'],
  schema: () => z.strictObject({ provider: z.literal('converse-test'), baseUrl: z.string() }),
  create: (settings, context) =>
    createHttpProvider({
      id: context.id,
      protocol: 'converse',
      baseUrl: settings.baseUrl,
      wire: {
        path: (call) => `/model/${call.model}/converse`,
        credentialHeader: (key) => ['authorization', key],
      },
    }),
})

function config(upstream: unknown): GatewayConfig {
  return {
    upstreamKinds: [converseKind],
    groups: [
      {
        id: 'bedrock',
        protocol: 'converse',
        models: ['amazon.nova-pro-v1:0'],
        upstreams: [upstream as never],
      },
    ],
    keys: [{ key: 'sk-test-converse-config-0123456789ab' }],
  }
}

describe('a converse group', () => {
  it('takes the upstreams of a kind that serves converse', () => {
    expect(() =>
      createGateway(config({ provider: 'converse-test', baseUrl: 'http://127.0.0.1:9' })),
    ).not.toThrow()
  })

  it('refuses an HTTP upstream without a provider: Converse has no HTTP family of its own', () => {
    expect(configError(config({ baseUrl: 'https://bedrock.test', apiKey: 'k' })).issues).toEqual([
      {
        path: 'groups[0].upstreams[0].provider',
        message:
          'a "converse" group\'s upstreams name their kind ("provider": "bedrock", or a kind of your own that serves "converse")',
      },
    ])
  })

  it('refuses a kind that does not serve converse, and is refused in another family', () => {
    expect(configError(config({ provider: 'mock' })).issues).toEqual([
      {
        path: 'groups[0].upstreams[0].provider',
        message:
          'the "mock" upstream kind serves "openai", "anthropic", "gemini" groups, not "converse"',
      },
    ])
    const other = config({ provider: 'converse-test', baseUrl: 'http://127.0.0.1:9' })
    other.groups![0]!.protocol = 'openai'
    expect(configError(other).issues).toEqual([
      {
        path: 'groups[0].upstreams[0].provider',
        message: 'the "converse-test" upstream kind serves "converse" groups, not "openai"',
      },
    ])
  })

  it('answers count_tokens with 404, as groups without a counting endpoint do', async () => {
    const gateway = createGateway(
      config({ provider: 'converse-test', baseUrl: 'http://127.0.0.1:9' }),
    )
    const answer = await gateway(
      new Request('http://gateway.test/v1beta/models/amazon.nova-pro-v1:0:countTokens', {
        method: 'POST',
        headers: { 'x-goog-api-key': 'sk-test-converse-config-0123456789ab' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      }),
    )
    expect(answer.status).toBe(404)
    const anthropic = await gateway(
      new Request('http://gateway.test/v1/messages/count_tokens', {
        method: 'POST',
        headers: {
          'x-api-key': 'sk-test-converse-config-0123456789ab',
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify({
          model: 'amazon.nova-pro-v1:0',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      }),
    )
    expect(anthropic.status).toBe(404)
  })
})
