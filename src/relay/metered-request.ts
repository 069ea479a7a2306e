import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { UpstreamAttempt } from '../usage/upstream-attempt'
import { boundedWait, settleRetries } from '../usage/settle-retries'
import { nanoToUsd } from '../pricing/price-units'
import type { RoutePricing } from './route-price'
import { usageCost } from '../pricing/usage-cost'
import { resetInstant } from '../usage/key-limits'
import { settledUsage, type CallProgress } from '../usage/settled-usage'
import type {
  Reservation,
  SettleResult,
  TokenEstimate,
  TokenUsage,
  UsageOutcome,
  UsageRecord,
} from '../usage/usage-meter'

/** What a usage record says of the call, besides its usage and outcome. */
export type MeteredDetails = {
  groupId: string
  providerId: string
  model: string
  upstreamModel: string
  stream: boolean
  attempts?: readonly UpstreamAttempt[] | undefined
}

/** A request admitted by the meter: it settles exactly once, however it ends. */
export type MeteredRequest = {
  /**
   * Settles the reservation with the usage the upstream reported, or an estimate when it reported
   * none (see `settledUsage`); later calls do nothing.
   *
   * Returns the settle's promise when the meter answers asynchronously (a shared store), settled
   * or failed, never rejected: the answer's last bytes wait for it, so that a client that has its
   * whole answer and sends its next request — to this instance or another — finds this request
   * settled, not still holding what it reserved (issue 33). `undefined` when the meter settled at
   * once, or on a later call.
   *
   * @param progress how far the call got: sent upstream, or its answer begun toward the client
   */
  finish(
    outcome: UsageOutcome,
    status: number,
    usage: TokenUsage | undefined,
    progress: CallProgress,
  ): Promise<void> | undefined
  readonly finished: boolean
}

/**
 * Wraps a reservation so that ok, error and abort paths all settle it once. `details`, `estimate`
 * and `pricing` are read when it settles, so the attempt loop can point them at the attempt that
 * answered: the record's cost is its usage at that attempt's model's price (`null` when the model
 * has no price). The meter's promise,
 * if any, goes to `waitUntil` (Workers keep running until it resolves); a failing meter is
 * reported through the request's event, never as an unhandled rejection.
 *
 * While the request is alive its lease is renewed every third of the lease (so two renewals can
 * be lost before it expires); a crashed instance stops renewing, and its capacity comes back when
 * the lease runs out.
 */
export function startMeteredRequest(
  runtime: GatewayRuntime,
  scope: RequestScope,
  reservation: Reservation,
  details: MeteredDetails,
  estimate: TokenEstimate,
  pricing: RoutePricing,
): MeteredRequest {
  let finished = false
  const stopRenewing = renewLease(runtime, reservation)
  return {
    get finished() {
      return finished
    },
    finish(outcome, status, reported, progress) {
      if (finished) return undefined
      finished = true
      stopRenewing()
      const { usage, estimated } = settledUsage(reported, outcome, estimate, progress)
      const cost =
        pricing.price === undefined
          ? null
          : usageCost(usage, pricing.price, pricing.multiplier, pricing.surcharge)
      scope.event.usage = usage
      scope.event.cost = cost
      if (estimated) scope.event.estimated = true
      const record: UsageRecord = {
        requestId: scope.requestId,
        keyId: reservation.keyId,
        ...(scope.team === undefined ? {} : { team: scope.team.id }),
        ...(scope.endUser === undefined ? {} : { endUser: scope.endUser }),
        ...details,
        route: scope.event.route,
        usage,
        estimated,
        cost,
        outcome,
        status,
        startedAt: scope.startedAt,
        durationMs: runtime.now() - scope.startedAt,
      }
      let settled: unknown
      try {
        settled = runtime.meter.settle(reservation, record)
      } catch (error) {
        reportMeterFailure(error)
      }
      // The ledger gets the record once the settle is applied (or has failed), retries included:
      // a budget that a shared meter re-seeds from the ledger then never counts a request twice.
      // The answer waits for the first attempt only.
      const alert = (result: unknown) => raiseAlerts(runtime, scope, result)
      if (settled instanceof Promise) {
        const applied = settled.then(
          (result: unknown) => {
            alert(result)
            return result
          },
          (error: unknown) => reportMeterFailure(error),
        )
        const retried = applied.then((result) => settleRetries(result, alert, reportMeterFailure))
        scope.waitUntil(retried.then(() => writeLedger(runtime, record)))
        return boundedWait(applied.then(() => undefined))
      }
      alert(settled)
      if ((settled as SettleResult | undefined)?.retrying === undefined) {
        writeLedger(runtime, record)
        return undefined
      }
      const retried = settleRetries(settled, alert, reportMeterFailure)
      scope.waitUntil(retried.then(() => writeLedger(runtime, record)))
      return undefined
    },
  }
}

/** Hands the alert thresholds a settle crossed to `onBudgetAlert`. */
function raiseAlerts(runtime: GatewayRuntime, scope: RequestScope, result: unknown): void {
  const alerts = (result as SettleResult | undefined)?.alerts
  if (alerts === undefined) return
  const key = scope.key
  for (const crossing of alerts) {
    runtime.budgetAlert({
      keyId: key?.id ?? scope.event.keyId ?? '',
      ...(key?.name === undefined ? {} : { keyName: key.name }),
      per: crossing.per,
      limitUsd: nanoToUsd(crossing.limitNanoUsd),
      alertAtUsd: nanoToUsd(crossing.alertAtNanoUsd),
      spentUsd: nanoToUsd(crossing.spentNanoUsd),
      spentNanoUsd: crossing.spentNanoUsd,
      resetAt:
        crossing.resetInMs === undefined ? null : resetInstant(runtime.now(), crossing.resetInMs),
      requestId: scope.requestId,
    })
  }
}

function writeLedger(runtime: GatewayRuntime, record: UsageRecord): void {
  try {
    runtime.ledger?.record(record)
  } catch (error) {
    console.error('[model-gateway] usage ledger failed to take a record:', error)
  }
}

/** Starts renewing a reservation's lease; returns the function that stops it. */
function renewLease(runtime: GatewayRuntime, reservation: Reservation): () => void {
  const extend = runtime.meter.extend?.bind(runtime.meter)
  const leaseMs = reservation.leaseMs
  if (extend === undefined || leaseMs === undefined || !(leaseMs > 0)) return () => undefined
  const timer = setInterval(
    () => {
      try {
        const extended = extend(reservation)
        if (extended instanceof Promise) extended.catch(reportMeterFailure)
      } catch (error) {
        reportMeterFailure(error)
      }
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  )
  return () => clearInterval(timer)
}

function reportMeterFailure(error: unknown): void {
  // The response is already on its way; a meter failure must not turn into a crash.
  console.error('[model-gateway] usage meter failed:', error)
}
