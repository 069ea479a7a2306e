import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll } from 'vitest'
import type { GatewayConfig, GatewayHandler, RequestEvent } from '../../src/index'
import { anthropicApiKey, anthropicBaseUrl, anthropicHandlers } from './anthropic-upstream'
import { buildGateway, fetchThrough, gatewayUrl, keys } from './gateway'
import { gatewayHandler, geminiApiKey, geminiBaseUrl, geminiHandlers } from './gemini-upstream'
import { responsesApiKey, responsesBaseUrl, responsesHandlers } from './responses-upstream'
import {
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamCallRecord,
} from './upstream'

/** An upstream protocol family. */
export type Family = 'openai' | 'anthropic' | 'gemini'

/** A group of the fake gateway: a family, or `responses` (an openai upstream marked so). */
export type GroupKind = Family | 'responses'

type ModelEntries = NonNullable<GatewayConfig['groups']>[number]['models']

/**
 * A gateway whose three groups (`o` openai, `a` anthropic, `g` gemini) serve the given models from
 * the rule-enforcing fake upstreams, each answering as a model — and, when `responses` models are
 * given, a fourth group `r`: an openai group whose upstream is marked `responses: true`, served by
 * the rule-enforcing Responses fake. Importing test files get the msw hooks registered; the
 * official SDKs point at the gateway in process, and every Responses stream they read is
 * order-checked.
 */
export function useFakeUpstreams(
  models: Record<Family, ModelEntries> & { responses?: ModelEntries },
) {
  const openai = createMockUpstream()
  openai.answer({ kind: 'model' })
  const calls: Record<GroupKind, UpstreamCallRecord[]> = {
    openai: openai.calls,
    anthropic: [],
    gemini: [],
    responses: [],
  }
  const state: { handler?: GatewayHandler; events: RequestEvent[] } = { events: [] }
  openai.server.use(
    ...anthropicHandlers({ calls: calls.anthropic, behaviour: () => ({ kind: 'model' }) }),
    ...geminiHandlers({ calls: calls.gemini, behaviour: () => ({ kind: 'model' }) }),
    ...responsesHandlers({ calls: calls.responses, behaviour: () => ({ kind: 'model' }) }),
    gatewayHandler(gatewayUrl, () => state.handler!),
  )
  beforeAll(() => {
    openai.server.listen({ onUnhandledRequest: 'error' })
    const built = buildGateway({
      groups: [
        {
          id: 'o',
          protocol: 'openai',
          models: models.openai,
          upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
        },
        {
          id: 'a',
          protocol: 'anthropic',
          models: models.anthropic,
          upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
        },
        {
          id: 'g',
          protocol: 'gemini',
          models: models.gemini,
          upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
        },
        ...(models.responses === undefined
          ? []
          : [
              {
                id: 'r',
                protocol: 'openai' as const,
                models: models.responses,
                upstreams: [
                  { baseUrl: responsesBaseUrl, apiKey: responsesApiKey, responses: true },
                ],
              },
            ]),
      ],
      keys: [{ key: keys.main }],
    })
    state.handler = built.gateway
    state.events = built.events
  })
  afterAll(() => openai.server.close())
  return {
    calls,
    /** The gateway's events so far. */
    events: () => state.events,
    /** The last body an upstream of the family received. */
    lastBody: (family: GroupKind) => JSON.parse(calls[family].at(-1)!.body) as Record<string, any>,
    openaiSdk: () =>
      new OpenAI({
        apiKey: keys.main,
        baseURL: `${gatewayUrl}/v1`,
        fetch: fetchThrough(state.handler!),
        maxRetries: 0,
      }),
    anthropicSdk: () =>
      new Anthropic({
        apiKey: keys.main,
        baseURL: gatewayUrl,
        fetch: fetchThrough(state.handler!),
        maxRetries: 0,
      }),
    genaiSdk: () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } }),
    /** A `fetch` into the gateway, for clients that take one (the Vercel AI SDK). */
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      fetchThrough(state.handler!)(input, init),
  }
}
