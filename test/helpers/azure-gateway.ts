import { createGateway, type GatewayConfig, type RequestEvent } from '../../src/index'
import { azureManagedIdentity, createNodeFetch, serveGateway } from '../../src/node/index'
import {
  startAzureFake,
  startEntraFake,
  startManagedIdentityFake,
  type TokenRegistry,
} from './fakes/azure-fakes'
import { keys } from './gateway'

/** The Entra service principal of the tests. */
export const entraApp = {
  tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
  clientId: '0d3c9b1e-5a4f-4b8e-9c1d-2e7f6a8b9c0d',
  clientSecret: 'Xq8Q~entra-client-secret-0123456789abcdefGH',
}

/** Resource A's `api-key`. */
export const azureKeyA = '3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e'

/**
 * The deployments of both fake resources: deployment name → model. `gpt-4o-mini` is named after
 * its model, as Azure names a deployment by default, so the gateway finds its price.
 */
export const deployments = {
  'gpt-4o-mini': 'gpt-4o-mini',
  'prod-mini': 'gpt-4o-mini',
  'prod-o4': 'o4-mini',
  'emb-small': 'text-embedding-3-small',
}

/**
 * Two Azure OpenAI resources (A and B), Entra ID and a managed identity endpoint on loopback, and
 * a gateway served on loopback whose groups reach them: `az` (v1 API, Entra; calls `mini`, `o4`,
 * `embed`, and `gpt-4o-mini`, its deployment named after the model), `dated` (deployment URLs with `api-version`, `api-key`; `dated-mini`), `resp`
 * (Responses API, Entra; `resp-mini`), `mi` (managed identity; `mi-mini`) and `pair` (resources A,
 * whose Entra secret is wrong, then B, a tier below; `pair-mini`). Extra config is merged in.
 */
export async function startAzureGateway(extra: Partial<GatewayConfig> = {}) {
  const tokens: TokenRegistry = new Map()
  const entra = await startEntraFake({ ...entraApp, tokens, delayMs: 40 })
  const identityHeader = 'mi-header-7c1e9a2b'
  const identity = await startManagedIdentityFake({ header: identityHeader, tokens })
  const resourceA = await startAzureFake({ deployments, apiKey: azureKeyA, tokens })
  const resourceB = await startAzureFake({ deployments, tokens })
  const events: RequestEvent[] = []
  const entraEntry = { ...entraApp, authorityHost: entra.origin }
  const gateway = createGateway({
    groups: [
      {
        id: 'az',
        protocol: 'openai',
        models: [
          { name: 'mini', upstreamModel: 'prod-mini' },
          { name: 'o4', upstreamModel: 'prod-o4' },
          { name: 'embed', upstreamModel: 'emb-small' },
          'gpt-4o-mini',
        ],
        upstreams: [
          { provider: 'azure', id: 'az-a', baseUrl: resourceA.origin, entra: entraEntry },
        ],
      },
      {
        id: 'dated',
        protocol: 'openai',
        models: [
          { name: 'dated-mini', upstreamModel: 'prod-mini' },
          { name: 'dated-embed', upstreamModel: 'emb-small' },
        ],
        upstreams: [
          {
            provider: 'azure',
            baseUrl: resourceA.origin,
            apiVersion: '2024-10-21',
            apiKey: azureKeyA,
          },
        ],
      },
      {
        id: 'resp',
        protocol: 'openai',
        models: [{ name: 'resp-mini', upstreamModel: 'prod-mini' }],
        upstreams: [
          {
            provider: 'azure',
            baseUrl: `${resourceA.origin}/openai/v1`,
            entra: entraEntry,
            responses: true,
          },
        ],
      },
      {
        id: 'mi',
        protocol: 'openai',
        models: [{ name: 'mi-mini', upstreamModel: 'prod-mini' }],
        upstreams: [{ provider: 'azure', baseUrl: resourceA.origin }],
      },
      {
        id: 'pair',
        protocol: 'openai',
        models: [{ name: 'pair-mini', upstreamModel: 'prod-mini' }],
        upstreams: [
          {
            provider: 'azure',
            id: 'pair-a',
            baseUrl: resourceA.origin,
            entra: { ...entraEntry, clientSecret: 'wrong-secret-value-0123456789' },
          },
          // Tried after pair-a: a lower tier first, so the failover is certain.
          {
            provider: 'azure',
            id: 'pair-b',
            baseUrl: resourceB.origin,
            entra: entraEntry,
            priority: 1,
          },
        ],
      },
    ],
    keys: [{ key: keys.main, name: 'main' }],
    fetch: createNodeFetch(),
    cloudCredentials: {
      azure: azureManagedIdentity({
        env: { IDENTITY_ENDPOINT: `${identity.origin}/msi/token`, IDENTITY_HEADER: identityHeader },
      }),
    },
    onEvent: (event) => events.push(event),
    ...extra,
  })
  const served = await serveGateway(gateway, { port: 0, host: '127.0.0.1' })
  return {
    url: served.url,
    tokens,
    entra,
    identity,
    resourceA,
    resourceB,
    events,
    async close() {
      await served.close()
      await Promise.all([entra.close(), identity.close(), resourceA.close(), resourceB.close()])
    },
  }
}
