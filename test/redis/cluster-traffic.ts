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
