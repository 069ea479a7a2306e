import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import type { GatewayConfig } from '../../src/index'
import { anthropicApiKey, anthropicBaseUrl } from './anthropic-upstream'
import {
  geminiEmbeddingsHandler,
  openAIEmbeddingsHandler,
  type EmbeddingFakeState,
} from './fakes/embedding-fakes'
import { buildGateway, keys } from './gateway'
import { gatewayHandler, geminiApiKey, geminiBaseUrl } from './gemini-upstream'
import { upstreamApiKey, upstreamBaseUrl } from './upstream'
import { gatewayUrl } from './gateway'

/** Keys of the embedding gateway beside the test gateway's. */
export const embeddingKeys = {
  perMinute: 'sk-test-embed-rpm-0123456789abcdefAB',
  budget: 'sk-test-embed-budget-0123456789abcdef',
} as const

/**
 * A gateway with three groups — `o` (OpenAI: `text-embedding-3-small`, `embed-large` →
 * `text-embedding-3-large`, `text-embedding-ada-002`, `embed-fb` → `text-embedding-3-small` falling
 * back to `g/gemini-embedding-001`), `g` (Gemini: `gemini-embedding-001`,
 * `gemini-embed` → `gemini-embedding-001`) and `a` (Anthropic: `claude-embed`) — on the
 * rule-enforcing embedding fakes, reached by every client through the global `fetch` (msw routes
 * `http://gateway.test` to the gateway in process), as the SDKs do by default. The fakes' calls
 * are cleared before each test.
 */
export function useEmbeddingGateway(overrides: Partial<GatewayConfig> = {}) {
  const fakes: { openai: EmbeddingFakeState; gemini: EmbeddingFakeState } = {
    openai: { calls: [], failures: [] },
    gemini: { calls: [], failures: [] },
  }
  let built: ReturnType<typeof buildGateway> | undefined
  const server = setupServer(
    openAIEmbeddingsHandler(upstreamBaseUrl, upstreamApiKey, fakes.openai),
    geminiEmbeddingsHandler(geminiBaseUrl, geminiApiKey, fakes.gemini),
    gatewayHandler(gatewayUrl, () => built!.gateway),
  )
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' })
    built = buildGateway({
      groups: [
        {
          id: 'o',
          protocol: 'openai',
          models: [
            'text-embedding-3-small',
            { name: 'embed-large', upstreamModel: 'text-embedding-3-large' },
            'text-embedding-ada-002',
            {
              name: 'embed-fb',
              upstreamModel: 'text-embedding-3-small',
              fallbacks: ['g/gemini-embedding-001'],
            },
          ],
          upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
        },
        {
          id: 'g',
          protocol: 'gemini',
          models: [
            'gemini-embedding-001',
            { name: 'gemini-embed', upstreamModel: 'gemini-embedding-001' },
          ],
          upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
        },
        {
          id: 'a',
          protocol: 'anthropic',
          models: ['claude-embed'],
          upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
        },
      ],
      keys: [
        { key: keys.main, name: 'main' },
        { key: keys.limited, name: 'limited', quota: { tokens: 30 } },
        { key: keys.gptOnly, name: 'gemini-only', groups: ['g'] },
        { key: embeddingKeys.perMinute, name: 'per-minute', limits: { inputTokensPerMinute: 40 } },
        { key: embeddingKeys.budget, name: 'budget', budget: { usd: 1, per: 'day' } },
      ],
      ...overrides,
    })
  })
  beforeEach(() => {
    for (const fake of [fakes.openai, fakes.gemini]) {
      fake.calls.length = 0
      fake.failures.length = 0
    }
  })
  afterAll(() => server.close())
  return {
    fakes,
    /** The gateway's memory meter's records so far. */
    records: () => built!.meter.records(),
    meter: () => built!.meter,
    events: () => built!.events,
    gateway: () => built!.gateway,
  }
}
