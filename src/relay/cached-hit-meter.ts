import type { CacheEntry } from '../cache/cache-entry'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import type { GatewayAnswer } from '../http/gateway-answer'
import type { UsageCost } from '../pricing/usage-cost'
import { boundedWait, settleRetries } from '../usage/settle-retries'
import type { SettleResult, UsageOutcome, UsageRecord } from '../usage/usage-meter'
import { admit, withRateLimitHeaders, type Admission } from './admit'
import { requestSubjects } from './request-subjects'
import type { RoutedCall } from './route-call'

/** A hit admitted by the meter: it settles once, however its answer ends. */
export type HitMetering = {
  /** Settles the hit; the promise of a shared meter's settle, if any (never rejects). */
  finish(outcome: UsageOutcome): Promise<void> | undefined
  /** Adds the key's rate-limit headers, counted with this hit, to its answer. */
  headers(answer: GatewayAnswer): void
}

/**
 * Admits a cache hit as a request: it takes one from the key's (and its team's, organisation's,
 * end user's) request windows and holds a concurrency slot while it is served, but reserves no
 * tokens and no money. It settles with no usage and no cost at the meter — a hit spends nothing
 * of a token or money budget — and its usage record, for the ledger and the event, carries the
 * original call's usage, `cached: true`, a cost of 0 and the money it saved (`savedCost`).
 *
 * @throws GatewayError the meter's refusal, as for any request (429, 503)
 */
export async function meterHit(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  routed: RoutedCall,
  entry: CacheEntry,
): Promise<HitMetering> {
  const key = scope.key
  const admission: Admission = await admit(runtime, scope, key, {
    estimatedTokens: 0,
    estimate: { inputTokens: 0, outputTokens: 0 },
    subjects: requestSubjects(runtime, scope, key),
  })
  const group = routed.route.group.id
  const upstreamModel = routed.route.model.upstreamModel
  scope.event.group = group
  scope.event.provider = 'cache'
  scope.event.upstreamModel = upstreamModel
  const cost = freeOf(entry.cost)
  scope.event.usage = entry.usage
  scope.event.cost = cost
  let finished = false
  return {
    headers: (answer) => void withRateLimitHeaders(answer, scope, admission, runtime.now()),
    finish(outcome) {
      if (finished) return undefined
      finished = true
      const record: UsageRecord = {
        requestId: scope.requestId,
        keyId: key.id,
        ...(scope.team === undefined ? {} : { team: scope.team.id }),
        ...(scope.endUser === undefined ? {} : { endUser: scope.endUser }),
        groupId: group,
        providerId: 'cache',
        model: routed.model,
        upstreamModel,
        route: scope.event.route,
        stream: routed.stream,
        usage: entry.usage,
        cost,
        cached: true,
        savedCost: entry.cost ?? null,
        outcome,
        status: 200,
        startedAt: scope.startedAt,
        durationMs: runtime.now() - scope.startedAt,
      }
      // The meter counts the request and frees its slot; tokens and money it is not charged.
      const charged: UsageRecord = { ...record, usage: undefined }
      let settled: unknown
      try {
        settled = runtime.meter.settle(admission.reservation, charged)
      } catch (error) {
        report(error)
      }
      const ledger = () => {
        try {
          runtime.ledger?.record(record)
        } catch (error) {
          console.error('[model-gateway] usage ledger failed to take a record:', error)
        }
      }
      // The ledger row waits for the settle and any retries of it (see `settleRetries`); the
      // answer waits for the first attempt only, bounded.
      const later = (result: unknown) => settleRetries(result, () => undefined, report)
      if (settled instanceof Promise) {
        const first = settled.then((result: unknown) => result, report)
        scope.waitUntil(first.then(later).then(ledger))
        return boundedWait(first.then(() => undefined))
      }
      if ((settled as SettleResult | undefined)?.retrying !== undefined) {
        scope.waitUntil(later(settled).then(ledger))
        return undefined
      }
      ledger()
      return undefined
    },
  }
}

/** What a hit costs the key: nothing, at the price the original call was charged at. */
function freeOf(cost: UsageCost | null | undefined): UsageCost | null {
  if (cost === undefined || cost === null) return null
  return { nanoUsd: 0, listNanoUsd: 0, price: cost.price }
}

function report(error: unknown): void {
  console.error('[model-gateway] usage meter failed:', error)
}
