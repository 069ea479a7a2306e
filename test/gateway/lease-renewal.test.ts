import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMemoryUsageMeter, type Reservation, type UsageMeter } from '../../src/index'
import { buildGateway, openAIClient } from '../helpers/gateway'
import {
  chatStreamFrames,
  controlledStream,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
} from '../helpers/upstream'

/**
 * Issue 8: a reservation's lease is renewed while its request lives, so a long stream keeps its
 * capacity however long it runs, and only a crashed instance's reservations expire.
 */
const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => upstream.server.close())

const key = 'sk-lease-renewal-0123456789abcdefABCD'

describe('lease renewal', () => {
  it(
    'keeps a stream that outlives its lease several times over counted, and stops renewing when it ends',
    { timeout: 30_000 },
    async () => {
      const leaseMs = 1000
      const inner = createMemoryUsageMeter({ leaseMs })
      const extended: string[] = []
      const meter: UsageMeter = {
        reserve: (request) => inner.reserve(request),
        settle: (reservation, record) => inner.settle(reservation, record),
        release: (reservation) => inner.release(reservation),
        extend(reservation: Reservation) {
          extended.push(reservation.id)
          return inner.extend!(reservation)
        },
        summary: (keyId, settings) => inner.summary(keyId, settings),
      }
      const { gateway } = buildGateway({
        usageMeter: meter,
        keys: [{ key, id: 'lease', limits: { concurrency: 1 } }],
        groups: [
          {
            id: 'gpt',
            protocol: 'openai',
            models: ['gpt-4o-mini'],
            upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
          },
        ],
      })
      const stream = controlledStream()
      upstream.answer({ kind: 'controlled', stream })
      const frames = chatStreamFrames(['a', 'b', 'c'], { includeUsage: true })
      stream.push(frames[0]!)
      const answer = await openAIClient(gateway, key).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      })
      const reading = (async () => {
        for await (const chunk of answer) void chunk
      })()
      // Three and a half leases long: without renewal the slot would be free after the first.
      await new Promise((resolve) => setTimeout(resolve, 3.5 * leaseMs))
      expect(extended.length).toBeGreaterThanOrEqual(3)
      const second = await openAIClient(gateway, key)
        .chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'Hi' }],
        })
        .catch((caught: unknown) => caught)
      expect(second).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
      for (const frame of frames.slice(1)) stream.push(frame)
      stream.close()
      await reading
      await vi.waitFor(async () => {
        const summary = await inner.summary('lease', { limits: { concurrency: 1 } })
        expect(summary.limits?.[0]).toMatchObject({ name: 'concurrency', remaining: 1 })
      })
      const renewals = extended.length
      await new Promise((resolve) => setTimeout(resolve, 2 * leaseMs))
      expect(extended.length).toBe(renewals)
    },
  )
})
