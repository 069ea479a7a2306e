import { GatewayError } from '../errors'
import { BudgetSeedError, createBudgetSeeds, type ReseedFunction } from './budget-seeds'
import type { KeyLimitSettings, LimitPlan } from './key-limits'
import { createLocalLimiter } from './local-limiter'
import {
  grantedResult,
  plannedSubjects,
  reservationSubjects,
  settingsOf,
  summarySubject,
  type PlannedSubject,
} from './metered-subjects'
import { refusalResult } from './refusal'
import type {
  KeyUsageSummary,
  MeteredSubjectKind,
  Reservation,
  ReserveRequest,
  ReserveResult,
  TokenEstimate,
  UsageMeter,
  UsageRecord,
} from './usage-meter'

/** A memory meter also hands out its most recent records, for tests and dashboards. */
export type MemoryUsageMeter = UsageMeter & {
  /** The most recent records, oldest first. */
  records(): readonly UsageRecord[]
}

/** Options of `createMemoryUsageMeter`. */
export type MemoryUsageMeterOptions = {
  /** How many recent records to keep (default 1000); totals are kept for every request. */
  maxRecords?: number
  /** The clock of windows, leases and calendar periods (default `Date.now`). */
  now?: () => number
  /** A reservation's lease, renewed by the gateway while its request is alive (default 60 s). */
  leaseMs?: number
  /**
   * Seeds each budget (`tokensPerDay`, `tokensPerMonth`, `quota.tokens`, and the money budgets of
   * `keys[].budget`) of a key from durable storage on its first use in this process, so that a
   * restart does not give a key its spent budget back: `ledgerReseed(ledger)` from
   * `model-gateway/postgres`. Without it, budgets start from zero when the process starts.
   */
  reseed?: ReseedFunction | undefined
  /** The longest `reseed` may take (default 2000 ms); past it, or on its failure, a 503. */
  reseedTimeoutMs?: number | undefined
}

type Totals = Omit<KeyUsageSummary, 'reservedTokens' | 'limits'>

/** The subjects the built-in meters enforce besides the key: every kind. */
export const meteredSubjectKinds: readonly MeteredSubjectKind[] = [
  'team',
  'organisation',
  'end-user',
]

/** The default lease of a reservation: the gateway renews it every third while a request lives. */
export const defaultLeaseMs = 60_000

/**
 * How often the memory meter looks for end users whose state it can drop (`forgetIfAtRest`): an
 * end user idle for a minute with nothing spent in its budgets' periods is gone within two.
 */
export const endUserSweepMs = 60_000

/** A reservation's estimate, split; a caller that gives only the total has it counted as input. */
export function estimateOf(request: {
  estimatedTokens: number
  estimate?: TokenEstimate | undefined
}): TokenEstimate {
  return request.estimate ?? { inputTokens: request.estimatedTokens, outputTokens: 0 }
}

/** A subject's totals before its first request. */
function emptyTotals(): Totals {
  return {
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    totalTokens: 0,
    costNanoUsd: 0,
    unpricedRequests: 0,
    cacheHits: 0,
    savedCostNanoUsd: 0,
  }
}

/**
 * A usage meter in process memory: exact totals per subject (the key, and a team, organisation or
 * end user a request names), a bounded list of recent records, and every limit each subject has
 * (windows, concurrency, calendar budgets, lifetime quota), all checked in one synchronous step.
 * The rules are those of `createLocalLimiter`; the Redis meter shares them.
 *
 * End users are many and come and go: about once a minute (on a reserve), the meter drops each
 * end user whose limits are at rest — nothing in flight, its windows full again, nothing spent in
 * its budgets' current periods — with its totals. What it holds is then bounded by the end users
 * active within the last minutes or with spend in the current day or month (a lifetime budget
 * keeps them), never by every end user ever seen.
 */
export function createMemoryUsageMeter(options: MemoryUsageMeterOptions = {}): MemoryUsageMeter {
  const maxRecords = options.maxRecords ?? 1000
  const leaseMs = options.leaseMs ?? defaultLeaseMs
  const clock = options.now ?? Date.now
  const limiter = createLocalLimiter({
    now: clock,
    leaseMs,
    doneTtlMs: Math.max(600_000, 2 * leaseMs),
  })
  const seeds =
    options.reseed === undefined
      ? undefined
      : createBudgetSeeds({
          reseed: options.reseed,
          timeoutMs: options.reseedTimeoutMs ?? 2000,
          now: clock,
          apply: (slot, name, periodId, tokens) => limiter.seed(slot, name, periodId, tokens),
        })
  /** Budgets of the subjects not yet seeded in this process: a promise to wait for, else nothing. */
  const seeding = (subjects: readonly PlannedSubject[]) => {
    if (seeds === undefined) return undefined
    let waits: Promise<void>[] | undefined
    for (const { plan, slot, id, ref } of subjects) {
      if (plan.budgets.length === 0 && plan.money.length === 0) continue
      const names = [
        ...plan.budgets.map((budget) => budget.name),
        ...plan.money.map((budget) => budget.name),
      ]
      const wait = seeds.ensure(slot, names, id, ref)
      if (wait !== undefined) (waits ??= []).push(wait)
    }
    if (waits === undefined) return undefined
    return waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined)
  }
  const totals = new Map<string, Totals>()
  // A ring buffer: once full, each record overwrites the oldest without shifting the rest.
  const recent: UsageRecord[] = []
  let oldest = 0
  let nextReservation = 0
  // End users come and go (a shared key's customers, without bound): each one's slot and the
  // plan it was last checked with, so that a sweep can drop those at rest. Keys, teams and the
  // organisation are few and stay.
  const endUsers = new Map<string, LimitPlan>()
  let nextSweep = clock() + endUserSweepMs
  const track = (subjects: readonly PlannedSubject[]) => {
    for (const { kind, slot, plan } of subjects) if (kind === 'end-user') endUsers.set(slot, plan)
  }
  const sweep = () => {
    const at = clock()
    if (at < nextSweep) return
    nextSweep = at + endUserSweepMs
    for (const [slot, plan] of endUsers) {
      if (!limiter.forgetIfAtRest(slot, plan)) continue
      endUsers.delete(slot)
      totals.delete(slot)
      seeds?.forget(slot, [
        ...plan.budgets.map((budget) => budget.name),
        ...plan.money.map((budget) => budget.name),
      ])
    }
  }

  const totalsOf = (slot: string): Totals => {
    let summary = totals.get(slot)
    if (summary === undefined) {
      summary = emptyTotals()
      totals.set(slot, summary)
    }
    return summary
  }
  const count = (summary: Totals, record: UsageRecord) => {
    summary.requests += 1
    if (record.cost === null) summary.unpricedRequests! += 1
    else if (record.cost !== undefined) summary.costNanoUsd! += record.cost.nanoUsd
    if (record.cached === true) {
      summary.cacheHits! += 1
      summary.savedCostNanoUsd! += record.savedCost?.nanoUsd ?? 0
    }
    if (record.usage !== undefined) {
      summary.inputTokens += record.usage.inputTokens
      summary.outputTokens += record.usage.outputTokens
      summary.cachedInputTokens += record.usage.cachedInputTokens
      summary.totalTokens += record.usage.totalTokens
    }
  }
  const estimateOfReservation = (reservation: Reservation): TokenEstimate =>
    reservation.estimate ?? { inputTokens: reservation.tokens, outputTokens: 0 }

  const reserveNow = (
    request: ReserveRequest,
    settings: KeyLimitSettings,
    subjects: readonly PlannedSubject[],
  ): ReserveResult => {
    const estimate = estimateOf(request)
    nextReservation += 1
    const id = `${request.requestId}#${nextReservation}`
    track(subjects)
    const check = limiter.reserve(id, subjects, estimate)
    if (!check.granted) return refusalResult(check.refusals)
    const reservation: Reservation = {
      id,
      keyId: request.keyId,
      tokens: Math.max(0, estimate.inputTokens) + Math.max(0, estimate.outputTokens),
      leaseMs,
      settings,
      estimate,
    }
    return grantedResult(reservation, subjects, check.states, request.subjects)
  }

  return {
    subjectKinds: meteredSubjectKinds,
    reserve(request) {
      sweep()
      const settings = settingsOf(request)
      const subjects = plannedSubjects(request.keyId, settings, request.subjects)
      const wait = seeding(subjects)
      if (wait === undefined) return reserveNow(request, settings, subjects)
      return wait.then(
        () => reserveNow(request, settings, subjects),
        (error: unknown): ReserveResult => {
          if (!(error instanceof BudgetSeedError)) throw error
          return { granted: false, reason: 'unavailable', retryAfterSeconds: 1 }
        },
      )
    },
    settle(reservation, record) {
      const subjects = reservationSubjects(reservation)
      const alerts = limiter.settle(
        reservation.id,
        subjects,
        estimateOfReservation(reservation),
        record.usage,
        record.cost?.nanoUsd,
      )
      if (alerts === false) return
      // A settle after its lease expired may come for an end user the sweep has dropped.
      track(subjects)
      count(totalsOf(record.keyId), record)
      for (let index = 1; index < subjects.length; index += 1) {
        count(totalsOf(subjects[index]!.slot), record)
      }
      if (recent.length < maxRecords) recent.push(record)
      else if (maxRecords > 0) {
        recent[oldest] = record
        oldest = (oldest + 1) % maxRecords
      }
      return alerts.length === 0 ? undefined : { alerts }
    },
    release(reservation) {
      limiter.release(reservation.id, reservationSubjects(reservation))
    },
    extend(reservation) {
      limiter.extend(reservation.id, reservationSubjects(reservation))
    },
    summary(subject, settings) {
      const asked = summarySubject(subject, settings)
      const slot = asked.slot
      const planned = settings === undefined ? undefined : asked
      // A seed keeps the end user's state: the sweep must know of it.
      if (planned?.kind === 'end-user' && seeds !== undefined) track([asked])
      const read = (): KeyUsageSummary => {
        const summary: KeyUsageSummary = {
          ...(totals.get(slot) ?? emptyTotals()),
          reservedTokens: limiter.reservedTokens(slot),
        }
        if (planned !== undefined) summary.limits = limiter.status(slot, planned.plan)
        return summary
      }
      const wait = planned === undefined ? undefined : seeding([planned])
      if (wait === undefined) return read()
      return wait.then(read, (error: unknown) => {
        throw new GatewayError(
          'unavailable',
          "The usage ledger is unavailable, so this key's budgets cannot be read. Try again shortly.",
          { cause: error, headers: { 'retry-after': '1' } },
        )
      })
    },
    records() {
      return [...recent.slice(oldest), ...recent.slice(0, oldest)]
    },
  }
}
