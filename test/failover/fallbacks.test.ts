import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  createStaticGroupRegistry,
  GatewayConfigError,
  type GroupRegistry,
  type UpstreamSelector,
  type GatewayConfig,
  type RequestEvent,
  type UsageMeter,
  type UsageRecord,
} from '../../src/index'
import { createWeightedSelector } from '../../src/extend'
import { baseUrlOf, failingUpstreams, type Cue } from '../helpers/failing-upstreams'
import { keys } from '../helpers/gateway'
import { upstreamUsage, type UpstreamKind } from '../helpers/upstream-usage'
import { callThrough, until } from './client-calls'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

/**
 * Three groups of one upstream each — `gpt` (OpenAI), `claude` (Anthropic), `gem` (Gemini) — each
 * upstream failing as its cue says, and the models' fallbacks as given.
 */
function setup(
  cues: Partial<Record<UpstreamKind, Cue>>,
  fallbacks: { gpt?: string[]; claude?: string[] },
  options: { keyGroups?: string[]; selector?: (registry: GroupRegistry) => UpstreamSelector } = {},
) {
  const kinds = ['openai', 'anthropic', 'gemini'] as const
  const fakes = Object.fromEntries(
    kinds.map((kind) => [kind, failingUpstreams(kind, () => cues[kind] ?? { kind: 'ok' })]),
  ) as Record<(typeof kinds)[number], ReturnType<typeof failingUpstreams>>
  const hostKind: Record<string, (typeof kinds)[number]> = {
    'gpt-up': 'openai',
    'claude-up': 'anthropic',
    'gem-up': 'gemini',
  }
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const host = new URL(input instanceof Request ? input.url : String(input)).hostname
    return fakes[hostKind[host.replace(/\.test$/, '')]!].fetch(input, init)
  }
  const records: UsageRecord[] = []
  const events: RequestEvent[] = []
  const reserved: number[] = []
  const memory = createMemoryUsageMeter()
  const meter: UsageMeter = {
    reserve: (request) => {
      reserved.push(request.estimatedTokens)
      return memory.reserve(request)
    },
    settle: (reservation, record) => memory.settle(reservation, record),
    release: (reservation) => memory.release(reservation),
    summary: (keyId, settings) => memory.summary(keyId, settings),
  }
  const upstream = (host: string, kind: UpstreamKind) => ({
    id: host,
    baseUrl: baseUrlOf(kind, host),
    apiKey: `sk-${host}-secret-0000000000000`,
  })
  const config: GatewayConfig = {
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: [{ name: 'gpt-4o-mini', fallbacks: fallbacks.gpt }],
        upstreams: [upstream('gpt-up', 'openai')],
      },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: [{ name: 'claude-haiku-4-5-20251001', fallbacks: fallbacks.claude }],
        upstreams: [upstream('claude-up', 'anthropic')],
      },
      {
        id: 'gem',
        protocol: 'gemini',
        models: ['gemini-2.5-flash'],
        upstreams: [upstream('gem-up', 'gemini')],
      },
    ],
    keys: [{ key: keys.main, groups: options.keyGroups }],
    usageMeter: meter,
    usageLedger: { record: (record) => void records.push(record) },
    onEvent: (event) => void events.push(event),
    fetch,
  }
  if (options.selector !== undefined) {
    const registry = createStaticGroupRegistry([])
    config.upstreamSelector = options.selector(registry)
  }
  return { gateway: createGateway(config), fakes, records, events, reserved }
}

const overloaded: Cue = { kind: 'status', status: 529 }

describe('fallbacks across groups and protocols', () => {
  it.each([false, true])(
    'an overloaded anthropic group falls back to a gemini group (Anthropic SDK, stream %s)',
    async (stream) => {
      const { gateway, fakes, records, events } = setup(
        { anthropic: overloaded },
        { claude: ['gem/gemini-2.5-flash'] },
      )
      const result = await callThrough('messages', gateway, 'claude-haiku-4-5-20251001', stream)
      expect(result.kind).toBe('answer')
      expect((result as { text: string }).text).not.toBe('')
      expect(fakes.anthropic.calls).toHaveLength(1)
      expect(fakes.gemini.calls).toHaveLength(1)
      // Translated: Gemini's own request, with the client's max_tokens as its output limit.
      const sent = fakes.gemini.calls[0]!
      expect(sent.url).toContain(
        stream
          ? '/models/gemini-2.5-flash:streamGenerateContent'
          : '/models/gemini-2.5-flash:generateContent',
      )
      expect(sent.body['generationConfig']['maxOutputTokens']).toBe(256)
      await until(() => records.length === 1 && events.length === 1)
      expect(records).toHaveLength(1)
      const record = records[0]!
      expect(record).toMatchObject({
        groupId: 'gem',
        providerId: 'gem-up',
        model: 'claude-haiku-4-5-20251001',
        upstreamModel: 'gemini-2.5-flash',
        outcome: 'ok',
        estimated: false,
      })
      // Exactly what Gemini reported; the overloaded attempt cost nothing.
      expect(record.usage).toEqual(upstreamUsage('gemini', fakes.gemini.answers[0]!))
      expect(record.attempts?.map((a) => [a.group, a.upstream, a.status, a.verdict])).toEqual([
        ['claude', 'claude-up', 529, 'failed'],
        ['gem', 'gem-up', 200, 'ok'],
      ])
      expect(events[0]).toMatchObject({
        group: 'gem',
        provider: 'gem-up',
        upstreamModel: 'gemini-2.5-flash',
      })
      expect(events[0]!.attempts).toEqual(record.attempts)
    },
  )

  it.each([false, true])(
    'an openai group falls back to an anthropic group with its own output limit (OpenAI SDK, stream %s)',
    async (stream) => {
      const { gateway, fakes, records, reserved } = setup(
        { openai: { kind: 'status', status: 503 } },
        { gpt: ['claude/claude-haiku-4-5-20251001'] },
      )
      const result = await callThrough('chat', gateway, 'gpt-4o-mini', stream)
      expect(result.kind).toBe('answer')
      expect((result as { text: string }).text).not.toBe('')
      expect(fakes.openai.calls).toHaveLength(1)
      expect(fakes.anthropic.calls).toHaveLength(1)
      // The client set no limit: Claude Haiku 4.5's own maximum output, not gpt-4o-mini's 16,384.
      expect(fakes.anthropic.calls[0]!.body['max_tokens']).toBe(64_000)
      // Held once, for the larger of the two allowances.
      expect(reserved).toHaveLength(1)
      expect(reserved[0]).toBeGreaterThan(64_000)
      await until(() => records.length === 1)
      expect(records[0]).toMatchObject({
        groupId: 'claude',
        providerId: 'claude-up',
        upstreamModel: 'claude-haiku-4-5-20251001',
        outcome: 'ok',
        estimated: false,
      })
      expect(records[0]!.usage).toEqual(upstreamUsage('anthropic', fakes.anthropic.answers[0]!))
      expect(records[0]!.attempts?.map((a) => [a.group, a.status, a.phase])).toEqual([
        ['gpt', 503, 'headers'],
        ['claude', 200, stream ? 'stream' : 'first-byte'],
      ])
    },
  )

  it('falls back at once when no upstream of the group may be tried (circuits open)', async () => {
    const { gateway, fakes, records } = setup(
      {},
      { claude: ['gem/gemini-2.5-flash'] },
      {
        selector: (registry) => {
          const weighted = createWeightedSelector({ registry, random: Math.random })
          return {
            select: (group, context) =>
              group.id === 'claude'
                ? { unavailable: true, retryAfterMs: 30_000, reason: 'circuits-open' }
                : weighted.select(group, context),
            health: () => [],
          }
        },
      },
    )
    const result = await callThrough('messages', gateway, 'claude-haiku-4-5-20251001', true)
    expect(result.kind).toBe('answer')
    expect(fakes.anthropic.calls).toHaveLength(0)
    expect(fakes.gemini.calls).toHaveLength(1)
    await until(() => records.length === 1)
    expect(records[0]!.attempts?.map((a) => [a.group, a.verdict])).toEqual([['gem', 'ok']])
    expect(records[0]!.usage).toEqual(upstreamUsage('gemini', fakes.gemini.answers[0]!))
  })

  it('skips a fallback group the key may not use', async () => {
    const { gateway, fakes, records } = setup(
      { anthropic: overloaded },
      { claude: ['gem/gemini-2.5-flash'] },
      { keyGroups: ['claude'] },
    )
    const result = await callThrough('messages', gateway, 'claude-haiku-4-5-20251001', false)
    expect(result).toMatchObject({ kind: 'error', status: 529 })
    expect(fakes.gemini.calls).toHaveLength(0)
    await until(() => records.length === 1)
    // No fallback the key may use: the lone upstream is tried as `retry.attempts` (3) says.
    expect(records[0]!.attempts).toHaveLength(3)
  })

  it('never falls back on the client’s own error', async () => {
    const { gateway, fakes } = setup(
      { anthropic: { kind: 'status', status: 400 } },
      { claude: ['gem/gemini-2.5-flash'] },
    )
    const result = await callThrough('messages', gateway, 'claude-haiku-4-5-20251001', false)
    expect(result).toMatchObject({ kind: 'error', status: 400 })
    expect(fakes.gemini.calls).toHaveLength(0)
  })

  it('answers the last failure when the fallback fails too', async () => {
    const { gateway, records } = setup(
      { anthropic: overloaded, gemini: { kind: 'status', status: 503 } },
      { claude: ['gem/gemini-2.5-flash'] },
    )
    const result = await callThrough('messages', gateway, 'claude-haiku-4-5-20251001', false)
    // Gemini's 503 UNAVAILABLE, in Anthropic's shape.
    expect(result).toMatchObject({ kind: 'error', status: 503 })
    await until(() => records.length === 1)
    expect(records[0]).toMatchObject({ outcome: 'error', usage: undefined })
    // The last candidate, alone in its group, is retried as `retry.attempts` (3) says.
    expect(records[0]!.attempts?.map((a) => a.group)).toEqual(['claude', 'gem', 'gem', 'gem'])
  })

  it('checks at config load that each fallback names a known group and model', () => {
    const config = (fallbacks: string[]): GatewayConfig => ({
      groups: [
        {
          id: 'a',
          protocol: 'openai',
          models: [{ name: 'm', fallbacks }],
          upstreams: [{ provider: 'mock' }],
        },
        { id: 'b', protocol: 'gemini', models: ['n'], upstreams: [{ provider: 'mock' }] },
      ],
      keys: [{ key: keys.main }],
    })
    expect(() => createGateway(config(['b/n']))).not.toThrow()
    for (const [fallbacks, message] of [
      [['c/n'], 'groups[0].models[0].fallbacks[0]: unknown group "c"'],
      [['b/x'], 'groups[0].models[0].fallbacks[0]: group "b" serves no model "x"'],
      [['n'], 'groups[0].models[0].fallbacks[0]: expected "<group>/<model>"'],
    ] as const) {
      const error = (() => {
        try {
          createGateway(config([...fallbacks]))
        } catch (thrown) {
          return thrown
        }
      })()
      expect(error).toBeInstanceOf(GatewayConfigError)
      expect((error as Error).message).toContain(message)
    }
  })
})
