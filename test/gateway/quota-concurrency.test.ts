import { http, HttpResponse } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createMemoryUsageMeter,
  type KeyUsageSummary,
  type ReserveResult,
  type UsageMeter,
  type UsageRecord,
} from '../../src/index'
import type { LimitState } from '../../src/extend'
import { buildGateway, keys, openAIClient } from '../helpers/gateway'
import {
  chatCompletion,
  chatStreamFrames,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
} from '../helpers/upstream'

const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => upstream.server.close())

/** What every call reports: about 120 tokens, most of them output. */
const reported = { prompt_tokens: 20, completion_tokens: 100, total_tokens: 120 }
const encoder = new TextEncoder()

/** The upstream answers every call after 40 ms, JSON or SSE, so that all calls overlap. */
upstream.server.use(
  http.post(`${upstreamBaseUrl}/chat/completions`, async ({ request }) => {
    const body = (await request.json()) as { stream?: boolean }
    await new Promise((done) => setTimeout(done, 40))
    if (body.stream !== true) return HttpResponse.json(chatCompletion('ok', reported))
    const frames = chatStreamFrames(['o', 'k'], { includeUsage: true, usage: reported })
    return new HttpResponse(
      new ReadableStream({
        start(controller) {
          for (const frame of frames) controller.enqueue(encoder.encode(frame))
          controller.close()
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    )
  }),
)

type Step =
  | { kind: 'admit'; id: string; held: number; estimate: number }
  | { kind: 'settle'; id: string; used: number; record: UsageRecord }

/** The memory meter, with every admission and settlement logged in order. */
function tracedMeter() {
  const inner = createMemoryUsageMeter()
  const steps: Step[] = []
  const meter: UsageMeter = {
    reserve(request) {
      // What the quota holds for this call: the estimate, or the remainder when that is smaller.
      const quotaHeld = (limits: readonly LimitState[] | undefined) =>
        limits?.find((limit) => limit.name === 'quota')?.reserved ?? 0
      const settings = { quotaTokens: request.quotaTokens }
      const before = quotaHeld((inner.summary(request.keyId, settings) as KeyUsageSummary).limits)
      const result = inner.reserve(request) as ReserveResult
      if (result.granted) {
        const held = quotaHeld(result.limits) - before
        steps.push({
          kind: 'admit',
          id: result.reservation.id,
          held,
          estimate: request.estimatedTokens,
        })
      }
      return result
    },
    settle(reservation, record) {
      steps.push({
        kind: 'settle',
        id: reservation.id,
        used: record.usage?.totalTokens ?? 0,
        record,
      })
      return inner.settle(reservation, record)
    },
    release: (reservation) => inner.release(reservation),
    summary: (keyId) => inner.summary(keyId),
  }
  return { meter, steps, inner }
}

/**
 * The bound of docs/limits-and-usage.md: the requests in flight when the last request was admitted (that one
 * included) may each use more than they held; the quota is overshot by at most the sum of
 * those differences.
 */
function overshootBound(steps: readonly Step[]): number {
  const lastAdmission = steps.findLastIndex((step) => step.kind === 'admit')
  let bound = 0
  for (const [index, step] of steps.entries()) {
    if (step.kind !== 'admit' || index > lastAdmission) continue
    const settled = steps.findIndex((other) => other.kind === 'settle' && other.id === step.id)
    if (settled > lastAdmission) {
      bound += (steps[settled] as Extract<Step, { kind: 'settle' }>).used - step.held
    }
  }
  return bound
}

/**
 * The admission rule: every admitted call held its whole estimate, except one admitted while no
 * other call was in flight (it holds the remainder). Returns how many ran alone on a remainder.
 */
function checkHolds(steps: readonly Step[]): number {
  const inFlight = new Set<string>()
  let alone = 0
  for (const step of steps) {
    if (step.kind === 'settle') {
      inFlight.delete(step.id)
      continue
    }
    if (step.held < step.estimate) {
      expect(inFlight.size, 'a call admitted on a remainder smaller than its estimate').toBe(0)
      alone += 1
    } else expect(step.held).toBe(step.estimate)
    inFlight.add(step.id)
  }
  return alone
}

const quota = 2000
const concurrent = 200

/**
 * 200 concurrent calls through the openai SDK (every other one a stream) on a 2,000-token key;
 * `maxOutputTokens` overrides the model's profile, as an operator may.
 */
async function burst(maxOutputTokens?: number) {
  const { meter, steps, inner } = tracedMeter()
  const { gateway } = buildGateway({
    usageMeter: meter,
    keys: [{ key: keys.limited, quota: { tokens: quota } }],
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: [
          maxOutputTokens === undefined
            ? 'gpt-4o-mini'
            : { name: 'gpt-4o-mini', profile: { maxOutputTokens } },
        ],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
    ],
  })
  const client = openAIClient(gateway, keys.limited)
  const messages = [{ role: 'user' as const, content: 'Say ok.' }]
  const results = await Promise.allSettled(
    Array.from({ length: concurrent }, async (_, index) => {
      if (index % 2 === 0) {
        return client.chat.completions.create({ model: 'gpt-4o-mini', messages })
      }
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        stream: true,
      })
      for await (const chunk of stream) void chunk
      return stream
    }),
  )
  const refused = results.filter(
    (result) =>
      result.status === 'rejected' && (result.reason as { status?: number }).status === 429,
  ).length
  const served = results.filter((result) => result.status === 'fulfilled').length
  const keyId = steps.find((step) => step.kind === 'settle')?.record.keyId ?? ''
  const used = (await inner.summary(keyId)).totalTokens
  const overshoot = Math.max(0, used - quota)
  const bound = overshootBound(steps)
  const alone = checkHolds(steps)
  console.log(
    `quota ${quota}, ${concurrent} concurrent calls, allowance ${maxOutputTokens ?? 'the profile’s'}: ` +
      `${served} served (${alone} alone on a remainder), ${refused} refused (429); ` +
      `used ${used}, overshoot ${overshoot} (${((100 * overshoot) / quota).toFixed(1)} %), bound ${bound}`,
  )
  return { served, refused, used, overshoot, bound, steps }
}

describe('quota under concurrency', () => {
  it('holds the default output allowance (the model’s maximum output): 200 concurrent calls on a 2,000-token quota overshoot it by at most a few calls', async () => {
    const run = await burst()
    expect(run.served + run.refused).toBe(concurrent)
    expect(run.served).toBeGreaterThan(0)
    // Every admitted call settled with what the upstream reported, none estimated.
    const settled = run.steps.filter((step) => step.kind === 'settle')
    expect(settled).toHaveLength(run.served)
    expect(settled.every((step) => step.used === 120 && step.record.estimated === false)).toBe(true)
    expect(run.overshoot).toBeLessThanOrEqual(Math.max(0, run.bound))
    // The allowance exceeds the quota: calls run one at a time, so at most one call's worth.
    expect(run.overshoot).toBeLessThanOrEqual(120)
  })

  it('keeps to the bound when the allowance is smaller than what calls really use', async () => {
    // A profile that says 50 output tokens, 100 used: each call in flight spends 50 beyond its hold.
    const run = await burst(50)
    expect(run.served + run.refused).toBe(concurrent)
    expect(run.overshoot).toBeGreaterThan(0)
    expect(run.overshoot).toBeLessThanOrEqual(run.bound)
  })
})
