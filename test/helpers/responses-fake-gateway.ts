import OpenAI from 'openai'
import { afterAll, beforeAll, expect } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import { anthropicApiKey, anthropicBaseUrl, anthropicHandlers } from './anthropic-upstream'
import { buildGateway, gatewayUrl, keys } from './gateway'
import { geminiApiKey, geminiBaseUrl, geminiHandlers } from './gemini-upstream'
import { responsesApiKey, responsesBaseUrl, responsesHandlers } from './responses-upstream'
import { expectResponsesStreamOrder } from './responses-stream'
import {
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamCallRecord,
} from './upstream'
import { upstreamUsage, type UpstreamKind } from './upstream-usage'

/** The upstream model each kind serves, under the call name `model-<kind>`. */
export type FakeModels = Record<UpstreamKind, string>

/** Every upstream kind, in the matrix's order. */
export const upstreamKinds: UpstreamKind[] = ['openai', 'responses', 'anthropic', 'gemini']

/**
 * A gateway over the four rule-enforcing fake upstreams (openai chat, an openai upstream marked
 * `responses: true`, anthropic, gemini), each answering as a model, serving `model-<kind>`.
 * `fetch` hands requests to the gateway and checks every Responses stream it answers with the
 * stream-order checker; `expectExactUsage` compares what the meter recorded since a mark with
 * what each upstream reported, answer by answer.
 */
export function useResponsesFakes(models: FakeModels) {
  const openai = createMockUpstream()
  openai.answer({ kind: 'model' })
  const calls: Record<UpstreamKind, UpstreamCallRecord[]> = {
    openai: openai.calls,
    responses: [],
    anthropic: [],
    gemini: [],
  }
  const answers: Array<Promise<{ kind: UpstreamKind; text: string }>> = []
  const checks: Array<Promise<void>> = []
  const state: { handler?: GatewayHandler; meter?: ReturnType<typeof buildGateway>['meter'] } = {}
  openai.server.use(
    ...anthropicHandlers({ calls: calls.anthropic, behaviour: () => ({ kind: 'model' }) }),
    ...geminiHandlers({ calls: calls.gemini, behaviour: () => ({ kind: 'model' }) }),
    ...responsesHandlers({ calls: calls.responses, behaviour: () => ({ kind: 'model' }) }),
  )
  openai.server.events.on('response:mocked', ({ request, response }) => {
    const kind = kindOf(request.url)
    if (kind === undefined || response.status !== 200) return
    answers.push(
      response
        .clone()
        .text()
        .then((text) => ({ kind, text })),
    )
  })
  beforeAll(() => {
    openai.server.listen({ onUnhandledRequest: 'error' })
    const group = (kind: UpstreamKind, upstream: Record<string, unknown>) => ({
      id: kind,
      protocol: (kind === 'responses' ? 'openai' : kind) as 'openai' | 'anthropic' | 'gemini',
      models: [{ name: `model-${kind}`, upstreamModel: models[kind] }],
      upstreams: [upstream as { baseUrl: string }],
    })
    const built = buildGateway({
      groups: [
        group('openai', { baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }),
        group('responses', { baseUrl: responsesBaseUrl, apiKey: responsesApiKey, responses: true }),
        group('anthropic', { baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }),
        group('gemini', { baseUrl: geminiBaseUrl, apiKey: geminiApiKey }),
      ],
      keys: [{ key: keys.main }],
    })
    state.handler = built.gateway
    state.meter = built.meter
  })
  afterAll(() => openai.server.close())

  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await state.handler!(new Request(input, init))
    const url = new URL(new Request(input, init).url)
    if (
      url.pathname.endsWith('/responses') &&
      response.headers.get('content-type')?.includes('event-stream')
    )
      checks.push(
        response
          .clone()
          .text()
          .then((text) => void expectResponsesStreamOrder(text)),
      )
    return response
  }
  return {
    calls,
    fetch,
    openaiSdk: () =>
      new OpenAI({ apiKey: keys.main, baseURL: `${gatewayUrl}/v1`, fetch, maxRetries: 0 }),
    /** Where the meter's records and the upstream answers stand now. */
    mark: () => ({ records: state.meter!.records().length, answers: answers.length }),
    /** Every request since the mark was metered exactly as its upstream reported it. */
    async expectExactUsage(mark: { records: number; answers: number }, count?: number) {
      await Promise.all(checks.splice(0))
      const reported = await Promise.all(answers.slice(mark.answers))
      const records = state.meter!.records().slice(mark.records)
      if (count !== undefined) expect(records).toHaveLength(count)
      expect(records.map((record) => record.usage)).toEqual(
        reported.map(({ kind, text }) => upstreamUsage(kind, text)),
      )
      for (const record of records) expect(record.outcome).toBe('ok')
    },
  }
}

function kindOf(url: string): UpstreamKind | undefined {
  if (url.startsWith(responsesBaseUrl)) return 'responses'
  if (url.startsWith(upstreamBaseUrl)) return 'openai'
  if (url.startsWith(anthropicBaseUrl) && url.endsWith('/v1/messages')) return 'anthropic'
  if (url.startsWith(geminiBaseUrl) && !url.includes(':countTokens')) return 'gemini'
  return undefined
}
