import {
  createGateway,
  createMemoryUsageMeter,
  createMockProvider,
  type GatewayConfig,
  type ProtocolName,
  type ReserveRequest,
  type UpstreamProvider,
  type UsageMeter,
} from '../../src/index'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { createRedisUsageMeter } from '../../src/redis/index'
import { connectRedis, deletePrefix, scriptClient, uniquePrefix, type TestRedis } from './redis'

/** Keys of the limit tests, each with one kind of limit. */
export const limitedKeys = {
  rpm: 'sk-limits-rpm-0123456789abcdefABCDEF',
  otpm: 'sk-limits-otpm-0123456789abcdefABCDE',
  concurrency: 'sk-limits-conc-0123456789abcdefABCDE',
  day: 'sk-limits-day-0123456789abcdefABCDEF',
  quota: 'sk-limits-quota-0123456789abcdefABCD',
  mixed: 'sk-limits-mixed-0123456789abcdefABCD',
} as const

export const limitedKeyConfigs: GatewayConfig['keys'] = [
  { key: limitedKeys.rpm, id: 'rpm', limits: { requestsPerMinute: 5 } },
  { key: limitedKeys.otpm, id: 'otpm', limits: { outputTokensPerMinute: 1000 } },
  { key: limitedKeys.concurrency, id: 'concurrency', limits: { concurrency: 3 } },
  { key: limitedKeys.day, id: 'day', limits: { tokensPerDay: 1000 } },
  { key: limitedKeys.quota, id: 'quota', quota: { tokens: 10 } },
  {
    key: limitedKeys.mixed,
    id: 'mixed',
    limits: {
      requestsPerMinute: 100,
      inputTokensPerMinute: 50_000,
      outputTokensPerMinute: 20_000,
      concurrency: 10,
      tokensPerDay: 100_000,
      tokensPerMonth: 1_000_000,
    },
  },
]

/**
 * The built-in mock upstream behind a gate: while the gate is shut, calls wait at the upstream,
 * so a test holds requests in flight for as long as it likes.
 */
export function gatedUpstreams() {
  let open: () => void = () => undefined
  let gate: Promise<void> = Promise.resolve()
  let calls = 0
  const provider = (protocol: ProtocolName): UpstreamProvider => {
    const inner = createMockProvider({ id: `${protocol}-mock`, protocol })
    return {
      id: inner.id,
      protocol,
      async send(call) {
        calls += 1
        await gate
        return inner.send(call)
      },
    }
  }
  return {
    groups: [
      { id: 'gpt', protocol: 'openai', models: ['gpt-test'], upstreams: [provider('openai')] },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: ['claude-test'],
        upstreams: [provider('anthropic')],
      },
      { id: 'gem', protocol: 'gemini', models: ['gemini-test'], upstreams: [provider('gemini')] },
    ] satisfies GatewayConfig['groups'],
    shut() {
      gate = new Promise((resolve) => (open = resolve))
    },
    open: () => open(),
    calls: () => calls,
  }
}

/** A meter that records what it was asked to reserve. */
export function spyOn(meter: UsageMeter) {
  const reserves: ReserveRequest[] = []
  /** When each reserve was asked (epoch ms), in the order of `reserves`. */
  const times: number[] = []
  const spied: UsageMeter = {
    reserve: (request) => (reserves.push(request), times.push(Date.now()), meter.reserve(request)),
    settle: (reservation, record) => meter.settle(reservation, record),
    release: (reservation) => meter.release(reservation),
    extend: (reservation) => meter.extend?.(reservation),
    drain: () => meter.drain?.(),
    summary: (keyId, settings) => meter.summary(keyId, settings),
  }
  return { meter: spied, reserves, times }
}

export type MeterKind = 'memory' | 'redis'

/**
 * Two gateway instances over HTTP sharing one meter store: for `redis`, two meters on two Redis
 * connections under one fresh prefix (as two processes would be); for `memory`, one instance
 * served twice (a memory meter cannot be shared, which is the point of the Redis one).
 */
export async function startLimitedGateways(kind: MeterKind) {
  const upstream = gatedUpstreams()
  const prefix = uniquePrefix('limits')
  const connections: TestRedis[] = []
  // A meter that loses Redis falls back to its failure policy, which these tests are not about:
  // they check that it never did, so that a count off by the local share says why.
  const storeLog: string[] = []
  const logger = {
    warn: (line: string) => storeLog.push(line),
    error: (line: string) => storeLog.push(line),
  }
  const meterFor = async (): Promise<UsageMeter> => {
    if (kind === 'memory') return createMemoryUsageMeter()
    const redis = await connectRedis()
    connections.push(redis)
    return createRedisUsageMeter({ client: scriptClient(redis), prefix, timeoutMs: 2000, logger })
  }
  const first = spyOn(await meterFor())
  const second = kind === 'memory' ? first : spyOn(await meterFor())
  const serve = (meter: UsageMeter) =>
    serveGateway(
      createGateway({ groups: upstream.groups, keys: limitedKeyConfigs, usageMeter: meter }),
      { port: 0 },
    )
  const servers: ServedGateway[] = [await serve(first.meter)]
  servers.push(kind === 'memory' ? servers[0]! : await serve(second.meter))
  return {
    upstream,
    urls: servers.map((server) => server.url) as [string, string],
    reserves: () => [...first.reserves, ...(second === first ? [] : second.reserves)],
    /**
     * Milliseconds from the first reserve to the last: a per-minute window refills while a
     * burst's requests straggle in on a loaded machine, so an exact count must allow for it.
     */
    reserveSpanMs: () => {
      const times = [...first.times, ...(second === first ? [] : second.times)]
      return times.length === 0 ? 0 : Math.max(...times) - Math.min(...times)
    },
    /** What the Redis meters logged about the store (going away, coming back). */
    storeLog: () => [...storeLog],
    async close() {
      upstream.open()
      await Promise.all([...new Set(servers)].map((server) => server.close()))
      if (connections[0] !== undefined) await deletePrefix(connections[0], prefix)
      for (const connection of connections) connection.destroy()
    },
  }
}
