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

/** What every call reports: 20 input and 100 output tokens, $0.000063 on gpt-4o-mini. */
const reported = { prompt_tokens: 20, completion_tokens: 100, total_tokens: 120 }
const costOfCall = 20 * 150 + 100 * 600
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

const budgetUsd = 0.002
const budget = { usd: budgetUsd, per: 'day' as const }
const limit = budgetUsd * 1e9

/** The memory meter, with every admission and settlement logged in order, in nano-USD. */
function tracedMeter() {
  const inner = createMemoryUsageMeter()
  const steps: Step[] = []
  const held = (limits: readonly LimitState[] | undefined) =>
    limits?.find((state) => state.name === 'usdPerDay')?.reserved ?? 0
  const meter: UsageMeter = {
    reserve(request) {
      const settings = { budgets: request.budgets }
      const before = held((inner.summary(request.keyId, settings) as KeyUsageSummary).limits)
      const result = inner.reserve(request) as ReserveResult
      if (result.granted) {
        steps.push({
          kind: 'admit',
          id: result.reservation.id,
          held: held(result.limits) - before,
          estimate: request.estimate?.costNano ?? 0,
        })
      }
      return result
    },
    settle(reservation, record) {
      steps.push({ kind: 'settle', id: reservation.id, used: record.cost?.nanoUsd ?? 0, record })
      return inner.settle(reservation, record)
    },
    release: (reservation) => inner.release(reservation),
    summary: (keyId, settings) => inner.summary(keyId, settings),
  }
  return { meter, steps, inner }
}

/**
 * The documented bound (as for token budgets): the calls in flight when the last call was
 * admitted (that one included) may each cost more than they held; the budget is overshot by at
 * most the sum of those differences.
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

/** Every admitted call held its whole estimate, except calls admitted alone on a remainder. */
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

const concurrent = 200

/**
 * 200 concurrent calls through the openai SDK (every other one a stream) on a key with a $0.002
 * daily budget; `maxOutputTokens` overrides the model's profile, as an operator may.
 */
async function burst(maxOutputTokens?: number, clientMaxTokens?: number) {
  const { meter, steps, inner } = tracedMeter()
  const { gateway } = buildGateway({
    usageMeter: meter,
    keys: [{ key: keys.limited, id: 'budgeted', budget }],
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
      const own = clientMaxTokens === undefined ? {} : { max_tokens: clientMaxTokens }
      if (index % 2 === 0) {
        return client.chat.completions.create({ model: 'gpt-4o-mini', messages, ...own })
      }
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        stream: true,
        ...own,
      })
      for await (const chunk of stream) void chunk
      return stream
    }),
  )
  const refusals = results.flatMap((result) =>
    result.status === 'rejected' ? [result.reason as { status?: number; code?: string }] : [],
  )
  const served = results.filter((result) => result.status === 'fulfilled').length
  const summary = await inner.summary('budgeted', { budgets: [budget] })
  const spent = summary.limits![0]!.used!
  const overshoot = Math.max(0, spent - limit)
  const bound = overshootBound(steps)
  const alone = checkHolds(steps)
  console.log(
    `money budget $${budgetUsd}/day, ${concurrent} concurrent calls of $${costOfCall / 1e9}, allowance ${clientMaxTokens ?? maxOutputTokens ?? 'the profile’s'}: ` +
      `${served} served (${alone} alone on a remainder), ${refusals.length} refused (429); ` +
      `spent ${spent} nano-USD, overshoot ${overshoot} (${((100 * overshoot) / limit).toFixed(1)} %), bound ${bound}`,
  )
  return { served, refusals, spent, overshoot, bound, steps }
}

describe('money budget under concurrency', () => {
  it('holds the default output allowance at the output price: 200 concurrent calls overshoot by at most one call', async () => {
    const run = await burst()
    expect(run.served + run.refusals.length).toBe(concurrent)
    expect(run.served).toBeGreaterThan(0)
    // Refused while the one call in flight holds the rest (429 rate_limit_exceeded, retry soon).
    expect(run.refusals.every((error) => error.status === 429)).toBe(true)
    const settled = run.steps.filter((step) => step.kind === 'settle')
    expect(settled).toHaveLength(run.served)
    expect(settled.every((step) => step.used === costOfCall)).toBe(true)
    expect(run.overshoot).toBeLessThanOrEqual(Math.max(0, run.bound))
    // The allowance's cost exceeds the budget: calls run one at a time, so at most one call's worth.
    expect(run.overshoot).toBeLessThanOrEqual(costOfCall)
  })

  it('serves many calls at once when the client sets its own output limit, and overshoots by less than the bound', async () => {
    // 100 output tokens allowed, 100 used: each call holds nearly what it costs (its input is
    // estimated from the body, a little under what the upstream counts).
    const run = await burst(undefined, 100)
    expect(run.served + run.refusals.length).toBe(concurrent)
    expect(run.served).toBeGreaterThan(20)
    // What was left was held by calls in flight (429 rate_limit_exceeded): none spent past it.
    expect(run.refusals.every((error) => error.status === 429)).toBe(true)
    expect(run.overshoot).toBeLessThanOrEqual(Math.max(0, run.bound))
  })

  it('keeps to the bound when the allowance is smaller than what calls really cost', async () => {
    // A profile that says 50 output tokens, 100 used: each call in flight spends beyond its hold.
    const run = await burst(50)
    expect(run.served + run.refusals.length).toBe(concurrent)
    expect(run.overshoot).toBeGreaterThan(0)
    expect(run.overshoot).toBeLessThanOrEqual(run.bound)
  })
})
