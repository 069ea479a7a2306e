import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import type { GatewayConfig, RequestEvent } from '../../src/index'
import { createGatewayWithState, serveGateway } from '../../src/node/index'
import { gatedUpstreams } from '../helpers/limited-gateway'
import { connectRedis, deletePrefix, redisUrl } from '../helpers/redis'

/**
 * Issue 33, item 5: a client that sends one request at a time, waiting for each answer, is never
 * refused because of a request it already has the answer to — even when it alternates between two
 * instances on one Redis, so that its next request reaches the meter through another connection
 * than the previous answer's settle. The quota is small against each request's estimate
 * (`max_tokens` above what is left), so every request is admitted only while nothing else is in
 * flight on it: a settle that has not reached Redis when the next request arrives shows as 429
 * "held by its requests in flight". The openai SDK runs at its defaults (it retries 429s), so the
 * refusals are counted where they happen, in the gateways' events.
 */
const key = 'sk-sequential-client-0123456789abcdef'
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const requests = 500

describe('a sequential client over two instances on Redis', () => {
  it(`is never refused by its own answered requests (${requests} requests, JSON and streams)`, async () => {
    const redis = await connectRedis()
    cleanups.push(async () => redis.destroy())
    const prefix = `seq_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
    cleanups.push(() => deletePrefix(redis, prefix))
    const upstream = gatedUpstreams()
    const refusals: RequestEvent[] = []
    const quota = 40_000
    const config = (): GatewayConfig => ({
      groups: upstream.groups,
      keys: [{ key, id: 'sequential', quota: { tokens: quota } }],
      state: { redis: redisUrl, prefix },
      onEvent: (event) => {
        if (event.status === 429) refusals.push(event)
      },
    })
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const served = await serveGateway(await createGatewayWithState(config()), { port: 0 })
        cleanups.push(() => served.close())
        return served
      }),
    )
    const clients = instances.map(
      (instance) => new OpenAI({ apiKey: key, baseURL: `${instance.url}/v1` }),
    )
    let used = 0
    for (let index = 0; index < requests; index += 1) {
      const client = clients[index % 2]!
      // Every request asks for more than the whole quota: it fits only alone on the remainder.
      const ask = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'Hi' }] }
      if (index % 4 < 2) {
        const answer = await client.chat.completions.create({ ...ask, max_tokens: quota })
        used += answer.usage!.total_tokens
      } else {
        const stream = await client.chat.completions.create({
          ...ask,
          max_tokens: quota,
          stream: true,
          stream_options: { include_usage: true },
        })
        for await (const chunk of stream) used += chunk.usage?.total_tokens ?? 0
      }
    }
    console.log(
      `sequential client, ${requests} requests alternating two instances on Redis, quota ${quota} tokens (${used} used): ` +
        `${refusals.length} refused by a finished request`,
    )
    expect(used).toBeLessThan(quota)
    expect(refusals.map((event) => event.refusal)).toEqual([])
  }, 120_000)
})
