import OpenAI from 'openai'
import {
  createGateway,
  createMemoryUsageMeter,
  type GatewayConfig,
  type GatewayHandler,
  type RequestEvent,
} from '../../src/index'
import { orderChecked } from './responses-stream'
import { upstreamApiKey, upstreamBaseUrl } from './upstream'

/** Keys of the test gateway. Each is a realistic high-entropy `sk-` key. */
export const keys = {
  main: 'sk-test-main-0123456789abcdefABCDEF',
  limited: 'sk-test-limited-0123456789abcdefABCD',
  gptOnly: 'sk-test-gptonly-0123456789abcdefABCD',
  disabled: 'sk-test-disabled-0123456789abcdefABC',
  expired: 'sk-test-expired-0123456789abcdefABCD',
} as const

/** The gateway's base URL as the SDKs see it (requests never leave the process). */
export const gatewayUrl = 'http://gateway.test'

/**
 * A gateway with an OpenAI group `gpt` on the msw upstream, a mock group `demo`, and keys of each
 * kind; plus the memory meter and the events it emitted.
 */
export function buildGateway(overrides: Partial<GatewayConfig> = {}) {
  const meter = createMemoryUsageMeter()
  const events: RequestEvent[] = []
  let ids = 0
  const config: GatewayConfig = {
    groupIdRouting: true,
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini', { name: 'fast', upstreamModel: 'gpt-4o-mini-2024-07-18' }],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [
      { key: keys.main, name: 'main' },
      { key: keys.limited, name: 'limited', quota: { tokens: 30 } },
      { key: keys.gptOnly, name: 'gpt-only', groups: ['gpt'] },
      { key: keys.disabled, disabled: true },
      { key: keys.expired, expiresAt: '2020-01-01T00:00:00Z' },
    ],
    usageMeter: meter,
    generateId: () => `req_test_${++ids}`,
    onEvent: (event) => events.push(event),
    ...overrides,
  }
  const gateway = createGateway(config)
  return { gateway, meter, events, config }
}

/**
 * A `fetch` that hands requests straight to the gateway handler. Every Responses event stream it
 * answers is checked, as the client reads it to its end, against the ordering rules the strictest
 * consumers enforce (`expectResponsesStreamOrder`): a violation errors the body, so the SDK
 * reading it fails the test.
 */
export function fetchThrough(gateway: GatewayHandler): typeof fetch {
  return async (input, init) => orderChecked(await gateway(new Request(input, init)), input)
}

/** The official openai SDK, pointed at the in-process gateway. */
export function openAIClient(gateway: GatewayHandler, apiKey: string = keys.main): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(gateway),
    maxRetries: 0,
  })
}
