import OpenAI, { APIError } from 'openai'

/** The keys the Cluster and Sentinel tests use: a token quota, a money budget, and no limits. */
export const trafficKeys = {
  quota: { key: 'sk-cluster-quota-0123456789abcdef', id: 'quota', limits: { tokensPerDay: 3000 } },
  money: {
    key: 'sk-cluster-money-0123456789abcdef',
    id: 'money',
    budget: { usd: 0.05, per: 'day' },
  },
  plain: { key: 'sk-cluster-plain-0123456789abcdef', id: 'plain' },
  /** A budget no failover test reaches: its requests are 200 unless the store is gone. */
  steady: {
    key: 'sk-cluster-steady-0123456789abcdef',
    id: 'steady',
    limits: { tokensPerDay: 10_000_000 },
  },
} as const

/** A gateway config on the mock upstream, its state on the Redis `redis` names. */
export function clusterConfig(redis: unknown, prefix: string, extra: object = {}) {
  return {
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
    ],
    // The mock's echo costs $1,000 / $2,000 per 1M tokens here: a burst spends $0.05 quickly.
    prices: { 'demo-echo': { input: 1000, output: 2000 } },
    keys: Object.values(trafficKeys),
    state: { redis, prefix, ...extra },
  }
}

/** One request's outcome as the client saw it. */
export type Outcome = { status: number; tokens?: number; retryAfter?: string | null }

/** One chat completion through the openai SDK (no retries), as an outcome. */
export async function chat(
  url: string,
  key: string,
  index: number,
  fetchWith?: typeof fetch,
): Promise<Outcome> {
  const client = new OpenAI({
    apiKey: key,
    baseURL: `${url}/v1`,
    maxRetries: 0,
    timeout: 30_000,
    ...(fetchWith === undefined ? {} : { fetch: fetchWith }),
  })
  try {
    const completion = await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: `Request ${index}: say something short.` }],
      max_tokens: 16,
    })
    return { status: 200, tokens: completion.usage!.total_tokens }
  } catch (error) {
    if (error instanceof APIError && error.status !== undefined) {
      return { status: error.status, retryAfter: error.headers?.get('retry-after') ?? null }
    }
    throw error
  }
}

/** `count` concurrent requests of one key, alternating over the instances' URLs. */
export function burst(urls: readonly string[], key: string, count: number): Promise<Outcome[]> {
  return Promise.all(
    Array.from({ length: count }, (_, index) => chat(urls[index % urls.length]!, key, index)),
  )
}

/** `GET /v1/usage` of a key, as the gateway at `url` answers it. */
export async function usageOf(url: string, key: string, fetchWith = fetch): Promise<any> {
  const response = await fetchWith(`${url}/v1/usage`, {
    headers: { authorization: `Bearer ${key}` },
  })
  if (response.status !== 200) throw new Error(`/v1/usage answered ${response.status}`)
  return response.json()
}

/** One outcome of the steady traffic a failover test keeps up, stamped when it was answered. */
export type Stamped = { at: number; key: 'budgeted' | 'plain'; outcome: Outcome }

/**
 * Steady traffic of a budgeted and an unlimited key, one request of each at a time (20 ms apart),
 * until `stop()`; `timeline` holds every outcome as it is answered.
 */
export function steadyTraffic(request: (key: string, index: number) => Promise<Outcome>) {
  const timeline: Stamped[] = []
  let stopped = false
  const done = (async () => {
    for (let index = 1; !stopped; index += 1) {
      const [one, two] = await Promise.all([
        request(trafficKeys.steady.key, index),
        request(trafficKeys.plain.key, index),
      ])
      const at = Date.now()
      timeline.push({ at, key: 'budgeted', outcome: one }, { at, key: 'plain', outcome: two })
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  return {
    timeline,
    /** True once the budgeted key was refused after `since` and then served again. */
    recovered(since: number): boolean {
      const after = timeline.filter((entry) => entry.at > since && entry.key === 'budgeted')
      const firstRefusal = after.findIndex((entry) => entry.outcome.status === 503)
      return (
        firstRefusal >= 0 && after.slice(firstRefusal).some((entry) => entry.outcome.status === 200)
      )
    },
    async stop(): Promise<void> {
      stopped = true
      await done
    },
  }
}

/**
 * The figures of a failover from its timeline: the gap (first 503 of the budgeted key after the
 * kill to its first 200 after that), the 503s in it, and the tokens its 200s were charged.
 */
export function failoverFigures(timeline: readonly Stamped[], killedAt: number) {
  const budgeted = timeline.filter((entry) => entry.key === 'budgeted')
  const after = budgeted.filter((entry) => entry.at > killedAt)
  const firstRefusal = after.find((entry) => entry.outcome.status === 503)!
  const firstBack = after.find(
    (entry) => entry.at > firstRefusal.at && entry.outcome.status === 200,
  )!
  return {
    gapMs: firstBack.at - firstRefusal.at,
    firstRefusalMs: firstRefusal.at - killedAt,
    refused: after.filter((entry) => entry.outcome.status === 503),
    charged: budgeted.reduce((sum, entry) => sum + (entry.outcome.tokens ?? 0), 0),
  }
}
