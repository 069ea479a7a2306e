import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  type UpstreamCall,
  type UpstreamProvider,
} from '../../src/index'
import { createNodeFetch, serveGateway } from '../../src/node/index'
import { claudeRegionalPremium, hasRegionalPremium } from '../../src/models/prices/claude-regional'
import { createPriceCatalogue } from '../../src/pricing/price-catalogue'
import { estimatedCostNano, usageCost } from '../../src/pricing/usage-cost'
import type { GatewayRuntime } from '../../src/gateway-runtime'
import { routeCostEstimate } from '../../src/relay/route-price'
import type { Route } from '../../src/routing/resolve-route'
import { bedrockSurcharge } from '../../src/upstream/bedrock/profile-surcharge'
import { vertexClaudeSurcharge } from '../../src/upstream/vertex/kind'
import { startBedrockFake } from '../helpers/bedrock/bedrock-fake'
import { anthropicModelAnswer } from '../helpers/fakes/anthropic-fake'
import { startVertexFake } from '../helpers/fakes/vertex-fake'
import { keys } from '../helpers/gateway'

/**
 * Where a model runs can change its price: Claude 4.5 and later cost 10% more on a Vertex
 * regional or multi-region endpoint, or a Bedrock geographic or in-region profile, than on the
 * global one (Anthropic's pricing page). The answering upstream's surcharge prices the request.
 */
describe('which Claude models carry the regional premium', () => {
  it.each([
    ['claude-sonnet-4-5@20250929', true],
    ['claude-haiku-4-5@20251001', true],
    ['claude-opus-4-5@20251101', true],
    ['claude-opus-4-6', true],
    ['claude-sonnet-4-6', true],
    ['claude-sonnet-4-5-20250929', true],
    ['us.anthropic.claude-haiku-4-5-20251001-v1:0', true],
    ['claude-fable-5-1', true],
    ['claude-opus-4-1@20250805', false],
    ['claude-sonnet-4@20250514', false],
    ['claude-sonnet-4-20250514', false],
    ['claude-3-7-sonnet@20250219', false],
    ['claude-3-5-haiku@20241022', false],
    ['gemini-2.5-pro', false],
  ])('%s: %s', (model, expected) => {
    expect(hasRegionalPremium(model)).toBe(expected)
  })
})

describe('Vertex and Bedrock surcharges', () => {
  it('Vertex: none on the global endpoint; 10% in a region or a multi-region, with its source', () => {
    expect(vertexClaudeSurcharge('global')).toBeUndefined()
    for (const region of ['us-east5', 'europe-west1', 'us', 'eu']) {
      const rule = vertexClaudeSurcharge(region)!
      expect(rule('claude-sonnet-4-5@20250929')).toEqual({
        multiplier: 1.1,
        source:
          'https://platform.claude.com/docs/en/about-claude/pricing#third-party-platform-pricing',
      })
      expect(rule('claude-opus-4-1@20250805')).toBeUndefined()
      // The same object each time: pricing a request allocates nothing.
      expect(rule('claude-sonnet-4-5@20250929')).toBe(rule('claude-sonnet-4-5@20250929'))
    }
  })

  it.each([
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 1.1],
    ['eu.anthropic.claude-haiku-4-5-20251001-v1:0', 1.1],
    ['apac.anthropic.claude-sonnet-4-5-20250929-v1:0', 1.1],
    ['jp.anthropic.claude-opus-4-5-20251101-v1:0', 1.1],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 1.1],
    ['arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0', 1.1],
    ['global.anthropic.claude-sonnet-4-5-20250929-v1:0', undefined],
    [
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      undefined,
    ],
    ['arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3', undefined],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', undefined],
    ['us.amazon.nova-pro-v1:0', undefined],
  ])('Bedrock %s: %s', (model, multiplier) => {
    expect(bedrockSurcharge(model)?.multiplier).toBe(multiplier)
  })
})

describe('usageCost with a surcharge', () => {
  const price = createPriceCatalogue().lookup('claude-sonnet-4-5-20250929')!
  const usage = {
    inputTokens: 1000,
    outputTokens: 200,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    reasoningTokens: 0,
    totalTokens: 1200,
  }

  it('charges and lists 1.1×, names the surcharge and its source, and leaves the rates as listed', () => {
    const plain = usageCost(usage, price, 1)
    const regional = usageCost(usage, price, 1, claudeRegionalPremium)
    // $3 × 1,000 + $15 × 200 per 1M = $0.006; 10% more is $0.0066.
    expect(plain.nanoUsd).toBe(6_000_000)
    expect(regional.nanoUsd).toBe(6_600_000)
    expect(regional.listNanoUsd).toBe(6_600_000)
    expect(regional.price).toMatchObject({ input: 3, output: 15, multiplier: 1 })
    expect(regional.price.surcharge).toEqual(claudeRegionalPremium)
    expect(plain.price).not.toHaveProperty('surcharge')
  })

  it('applies the group and key multiplier on top, rounded once', () => {
    const cost = usageCost(usage, price, 0.5, claudeRegionalPremium)
    expect(cost.nanoUsd).toBe(3_300_000)
    expect(cost.listNanoUsd).toBe(6_600_000)
  })
})

describe('the reservation, made before an upstream is chosen', () => {
  it('holds at the highest surcharge of the group, and at the list price with none', () => {
    const prices = createPriceCatalogue()
    const runtime = { prices } as unknown as GatewayRuntime
    const upstream = (id: string, surcharged: boolean): UpstreamProvider => ({
      id,
      protocol: 'anthropic',
      send: () => Promise.reject(new Error('not called')),
      ...(surcharged ? { priceSurcharge: () => claudeRegionalPremium } : {}),
    })
    const route = (upstreams: UpstreamProvider[]) =>
      ({
        group: { id: 'g', upstreams },
        model: { name: 'sonnet', upstreamModel: 'claude-sonnet-4-5@20250929' },
      }) as unknown as Route
    const estimate = { inputTokens: 1000, outputTokens: 200 }
    const list = estimatedCostNano(prices.lookup('claude-sonnet-4-5')!, estimate, 1)
    const key = { id: 'k', priceMultiplier: 2 } as never
    expect(routeCostEstimate(runtime, route([upstream('plain', false)]), key, estimate)).toBe(
      list * 2,
    )
    const mixed = route([upstream('global', false), upstream('regional', true)])
    expect(routeCostEstimate(runtime, mixed, key, estimate)).toBe(Math.round(list * 2.2))
  })
})

describe('a regional answer is recorded at 1.1× the global one', () => {
  const token = 'ya29.surcharge-test-token-0123456789'
  const bedrockKey = 'ABSKQmVkcm9ja0FQSUtleS1mYWtlLWtleS0wMTIzNDU2Nzg5'
  let regional: Awaited<ReturnType<typeof startVertexFake>>
  let global: Awaited<ReturnType<typeof startVertexFake>>
  let bedrock: Awaited<ReturnType<typeof startBedrockFake>>
  let served: Awaited<ReturnType<typeof serveGateway>>
  const meter = createMemoryUsageMeter()
  const sonnet = 'claude-sonnet-4-5-20250929'
  const profile = (prefix: string) => `${prefix}.anthropic.${sonnet}-v1:0`

  // A plain upstream given in code: the fake's own Anthropic answers, no surcharge.
  const plain: UpstreamProvider = {
    id: 'plain',
    protocol: 'anthropic',
    async send(call: UpstreamCall) {
      const answer = anthropicModelAnswer(JSON.parse(call.body))
      return Response.json('json' in answer ? answer.json : {})
    },
  }

  beforeAll(async () => {
    const isValid = (sent: string) => sent === token
    regional = await startVertexFake({ project: 'p', region: 'us-east5', isValid })
    global = await startVertexFake({ project: 'p', region: 'global', isValid })
    bedrock = await startBedrockFake({ region: 'us-east-1', apiKey: bedrockKey })
    const vertex = (region: string, url: string) => ({
      provider: 'vertex' as const,
      project: 'p',
      region,
      baseUrl: url,
      credentials: () => token,
    })
    const onBedrock = (id: string) => ({
      provider: 'bedrock' as const,
      id,
      region: 'us-east-1',
      baseUrl: bedrock.url,
      apiKey: bedrockKey,
    })
    const group = (id: string, upstreamModel: string, upstream: object) => ({
      id,
      protocol: 'anthropic' as const,
      models: [{ name: id, upstreamModel }],
      upstreams: [upstream as UpstreamProvider],
    })
    served = await serveGateway(
      createGateway({
        groups: [
          group('vertex-regional', 'claude-sonnet-4-5@20250929', vertex('us-east5', regional.url)),
          group('vertex-global', 'claude-sonnet-4-5@20250929', vertex('global', global.url)),
          group('vertex-old', 'claude-opus-4-1@20250805', vertex('us-east5', regional.url)),
          group('bedrock-us', profile('us'), onBedrock('bedrock-us')),
          group('bedrock-global', profile('global'), onBedrock('bedrock-global')),
          group('plain', sonnet, plain),
        ],
        keys: [{ key: keys.main }],
        usageMeter: meter,
        fetch: createNodeFetch(),
      }),
      { port: 0 },
    )
  })
  afterAll(async () => {
    await served.close()
    await Promise.all([regional.close(), global.close(), bedrock.close()])
  })

  /** One Messages call for `model`; its usage record. */
  async function recordOf(model: string) {
    const response = await fetch(`${served.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': keys.main,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'What does a region cost?' }],
      }),
    })
    expect(response.status).toBe(200)
    await response.text()
    const record = meter.records().findLast((entry) => entry.model === model)!
    expect(record.outcome).toBe('ok')
    return record
  }

  it('Vertex: us-east5 costs 1.1× global; the global and the plain upstream cost the list price', async () => {
    const atRegion = await recordOf('vertex-regional')
    const atGlobal = await recordOf('vertex-global')
    const atPlain = await recordOf('plain')
    expect(atRegion.usage).toEqual(atGlobal.usage)
    expect(atGlobal.usage).toEqual(atPlain.usage)
    const list = usageCost(atGlobal.usage, createPriceCatalogue().lookup(sonnet)!, 1)
    expect(list.nanoUsd).toBeGreaterThan(0)
    expect(atGlobal.cost!.nanoUsd).toBe(list.nanoUsd)
    expect(atPlain.cost!.nanoUsd).toBe(list.nanoUsd)
    expect(atRegion.cost!.nanoUsd).toBe(Math.round(list.nanoUsd * 1.1))
    expect(atRegion.cost!.listNanoUsd).toBe(Math.round(list.nanoUsd * 1.1))
    expect(atRegion.cost!.price.surcharge).toEqual(claudeRegionalPremium)
    expect(atGlobal.cost!.price).not.toHaveProperty('surcharge')
    expect(atPlain.cost!.price).not.toHaveProperty('surcharge')
  })

  it('Vertex: a model before 4.5 costs the same in a region', async () => {
    const old = await recordOf('vertex-old')
    const list = usageCost(old.usage, createPriceCatalogue().lookup('claude-opus-4-1')!, 1)
    expect(old.cost!.nanoUsd).toBe(list.nanoUsd)
    expect(old.cost!.price).not.toHaveProperty('surcharge')
  })

  it('Bedrock: a us. profile costs 1.1× the global. one', async () => {
    const atUs = await recordOf('bedrock-us')
    const atGlobal = await recordOf('bedrock-global')
    expect(atUs.usage).toEqual(atGlobal.usage)
    expect(atGlobal.cost!.price).not.toHaveProperty('surcharge')
    expect(atUs.cost!.nanoUsd).toBe(Math.round(atGlobal.cost!.nanoUsd * 1.1))
    expect(atUs.cost!.price.surcharge).toEqual(claudeRegionalPremium)
  })
})
