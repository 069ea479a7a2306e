import { GatewayError } from '../errors'
import type { ReseedFunction } from '../usage/budget-seeds'
import { createLocalLimiter, type LimitSubject } from '../usage/local-limiter'
import { defaultLeaseMs, estimateOf, meteredSubjectKinds } from '../usage/memory-usage-meter'
import {
  grantedResult,
  plannedSubjects,
  reservationSubjects,
  settingsOf,
  summarySubject,
  type PlannedSubject,
} from '../usage/metered-subjects'
import { refusalResult } from '../usage/refusal'
import type {
  KeyUsageSummary,
  Reservation,
  ReserveResult,
  TokenEstimate,
  UsageMeter,
} from '../usage/usage-meter'
import {
  describeFailurePolicy,
  localShare,
  resolveFailurePolicy,
  type StoreFailurePolicy,
} from './local-fallback'
import { createBudgetReseeder, ReseedError } from './budget-reseeder'
import { usageScripts } from './lua/usage-scripts'
import type { RedisScriptClient } from './redis-client'
import type { RedisScript } from './redis-script'
import { createStoreHealth, type StoreLogger } from './store-health'
import { createSettleRetries } from './settle-retry'
import { createSlotRunner, crossingsOf, failedGroup } from './slot-runner'
import { parseSummary, replyIntegers, scriptArgs, type ScriptContext } from './usage-replies'
import { usageKeys } from './usage-keys'
import { withTimeout } from './with-timeout'

export type { ReseedFunction }

/** Options of `createRedisUsageMeter`. */
export type RedisUsageMeterOptions = {
  /** Your Redis driver, adapted to two methods (see `RedisScriptClient`). */
  client: RedisScriptClient
  /** The first part of every key (default `mg`): `mg:usage:v1:{k:<key id>}:…`. */
  prefix?: string | undefined
  /** The longest a Redis call may take before the failure policy applies (default 200 ms). */
  timeoutMs?: number | undefined
  /** A reservation's lease, renewed by the gateway every third while its request lives (default 60 s). */
  leaseMs?: number | undefined
  /** What happens while Redis does not answer (defaults: budgets closed, windows local at 1/2). */
  onFailure?: StoreFailurePolicy | undefined
  /**
   * Re-seeds a budget that Redis lost (a restart without persistence, a flush, an eviction) from
   * durable storage, so that it neither restarts from zero nor counts anything twice. Without it,
   * a lost budget starts again from zero.
   */
  reseed?: ReseedFunction | undefined
  /** The longest `reseed` may take (default 1000 ms); past it, the request gets a 503. */
  reseedTimeoutMs?: number | undefined
  /** While Redis is down, one call per this interval tries it again (default 1000 ms). */
  probeIntervalMs?: number | undefined
  /** Where the loud lines about Redis going away and coming back go (default `console`). */
  logger?: StoreLogger | undefined
  /** The local clock, for the fallback limiter only: shared limits use Redis's `TIME`. */
  now?: (() => number) | undefined
  /**
   * Redis Cluster: a request whose subjects (a key, its team, the organisation) live in different
   * hash slots is reserved one slot at a time — the key's first — releasing what earlier slots
   * hold when a later one refuses. Off by default: one script checks every subject at once. A
   * meter that meets Cluster's `CROSSSLOT` answer turns it on by itself (and says so once).
   */
  cluster?: boolean | undefined
  /**
   * How long a settle that Redis did not take (a timeout, a master in failover) is tried again in
   * the background (default 30 s; 0: never). Each subject counts a reservation once, so a retry of
   * a settle that did run adds nothing; the request's ledger row waits for the retries.
   */
  settleRetryMs?: number | undefined
  /** The most settles retried at once (default 10,000); past it a failed settle is given up. */
  maxRetryingSettles?: number | undefined
}

const unavailable: ReserveResult = { granted: false, reason: 'unavailable', retryAfterSeconds: 1 }
const noUsage = [0, 0, 0, 0, 0]
const nothing: TokenEstimate = { inputTokens: 0, outputTokens: 0, costNano: 0 }

export function createRedisUsageMeter(options: RedisUsageMeterOptions): UsageMeter {
  const prefix = options.prefix ?? 'mg'
  const timeoutMs = options.timeoutMs ?? 200
  const leaseMs = options.leaseMs ?? defaultLeaseMs
  const doneTtlMs = Math.max(600_000, 2 * leaseMs)
  const reseedTimeoutMs = options.reseedTimeoutMs ?? 1000
  const policy = resolveFailurePolicy(options.onFailure)
  const now = options.now ?? Date.now
  const logger = options.logger ?? console
  const probeIntervalMs = options.probeIntervalMs ?? 1000
  const health = createStoreHealth({
    name: 'Redis usage store',
    whileDown: describeFailurePolicy(policy),
    probeIntervalMs,
    now,
    logger,
  })
  const local = createLocalLimiter({ now, leaseMs, doneTtlMs })
  const localIds = new Set<string>()

  const run = async (
    script: RedisScript,
    context: ScriptContext,
    ...extra: (string | number)[]
  ): Promise<number[]> => {
    const keys: string[] = []
    for (const subject of context.subjects) usageKeys(prefix, subject, keys)
    const call = script.run(options.client, keys, scriptArgs(context, ...extra))
    return replyIntegers(await withTimeout(call, timeoutMs))
  }
  const { runSeeded } = createBudgetReseeder({
    reseed: options.reseed,
    reseedTimeoutMs,
    probeIntervalMs,
    now,
    logger,
    run,
  })
  const contextOf = (
    subjects: readonly PlannedSubject[],
    reservationId: string,
    estimate: TokenEstimate,
  ): ScriptContext => ({
    subjects,
    reseed: options.reseed !== undefined,
    leaseMs,
    doneTtlMs,
    reservationId,
    estimate,
  })
  const estimateOfReservation = (reservation: Reservation): TokenEstimate =>
    reservation.estimate ?? { inputTokens: reservation.tokens, outputTokens: 0 }
  const localSubjects = (subjects: readonly PlannedSubject[]): LimitSubject[] =>
    subjects.map(({ slot, plan, ref }) => ({ slot, plan: localShare(plan, policy), ref }))
  const reserveLocally = (
    subjects: readonly PlannedSubject[],
    estimate: TokenEstimate,
    reservation: Reservation,
    others: Reservation['subjects'],
  ): ReserveResult => {
    for (const { plan } of subjects) {
      const hasBudgets = plan.budgets.length > 0 || plan.money.length > 0
      if (hasBudgets && policy.budgets === 'closed') return unavailable
      const hasWindows = plan.windows.length > 0 || plan.concurrency !== undefined
      if (hasWindows && policy.windows === 'closed') return unavailable
    }
    const check = local.reserve(reservation.id, localSubjects(subjects), estimate)
    if (!check.granted) return refusalResult(check.refusals)
    localIds.add(reservation.id)
    return grantedResult(reservation, subjects, check.states, others)
  }

  const retries = createSettleRetries({
    // Inside the `done` set's life, so a retry of a settle that did run is still recognised.
    windowMs: Math.min(options.settleRetryMs ?? 30_000, doneTtlMs / 2),
    maxRetrying: options.maxRetryingSettles ?? 10_000,
    logger,
    now,
  })
  const { runQuietly, reserveShared, shardOf } = createSlotRunner({
    run,
    runSeeded,
    health,
    logger,
    cluster: options.cluster === true,
  })

  return {
    subjectKinds: meteredSubjectKinds,

    async reserve(request) {
      const settings = settingsOf(request)
      const subjects = plannedSubjects(request.keyId, settings, request.subjects)
      const estimate = estimateOf(request)
      const id = `${request.requestId}:${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
      const reservation: Reservation = {
        id,
        keyId: request.keyId,
        tokens: Math.max(0, estimate.inputTokens) + Math.max(0, estimate.outputTokens),
        leaseMs,
        settings,
        estimate,
      }
      const shard = shardOf(subjects)
      if (!health.shouldTry(shard)) {
        return reserveLocally(subjects, estimate, reservation, request.subjects)
      }
      const context = contextOf(subjects, id, estimate)
      try {
        const result = await reserveShared(subjects, context)
        health.succeeded(shard)
        if (!result.granted) return result.refused
        return grantedResult(reservation, subjects, result.states, request.subjects)
      } catch (error) {
        // Budgets that cannot be re-seeded fail closed; Redis itself answered.
        if (error instanceof ReseedError) return unavailable
        health.failed(error, shard)
        // The reserve may still run late: release it, so it holds nothing until its lease ends.
        void runQuietly(usageScripts.release, subjects, context)
        return reserveLocally(subjects, estimate, reservation, request.subjects)
      }
    },

    async settle(reservation, record) {
      const subjects = reservationSubjects(reservation)
      const estimate = estimateOfReservation(reservation)
      const context = contextOf(subjects, reservation.id, estimate)
      if (localIds.delete(reservation.id)) {
        local.settle(reservation.id, localSubjects(subjects), estimate, record.usage)
        // Redis never held it: count it there as a settle that held nothing.
        context.estimate = nothing
      }
      const usage = record.usage
      const extra =
        usage === undefined
          ? noUsage
          : [1, usage.inputTokens, usage.outputTokens, usage.cachedInputTokens, usage.totalTokens]
      // A record without a price (`null`) counts as unpriced; one from before prices existed
      // (`undefined`) as priced at nothing.
      const cost = record.cost === null || record.cost === undefined ? 0 : record.cost.nanoUsd
      // A response-cache hit is counted with what it saved (the original call's cost).
      const hit = record.cached === true
      const saved = hit ? Math.max(0, Math.round(record.savedCost?.nanoUsd ?? 0)) : 0
      const own = [...extra, cost, record.cost === null ? 0 : 1, hit ? 1 : 0, saved]
      const attempt = async (parts: readonly PlannedSubject[]) => {
        // While the shard is down, one call per probe interval tries it: retries add no load.
        if (!health.shouldTry(shardOf(parts))) return { failed: [...parts], answers: [] }
        const replies = await runQuietly(
          usageScripts.settle,
          parts,
          { ...context, subjects: parts },
          ...own,
        )
        return { failed: replies.flatMap(failedGroup), answers: replies }
      }
      const first = await runQuietly(usageScripts.settle, subjects, context, ...own)
      const later = retries.retry(first.flatMap(failedGroup), attempt)
      const priced = subjects.some((subject) => subject.plan.money.length > 0)
      const alerts = priced ? crossingsOf(first) : []
      if (later === undefined) return alerts.length === 0 ? undefined : { alerts }
      const retrying = later.then((replies) => {
        const crossed = priced ? crossingsOf(replies) : []
        return crossed.length === 0 ? undefined : { alerts: crossed }
      })
      return alerts.length === 0 ? { retrying } : { alerts, retrying }
    },

    drain: () => retries.drain(),

    async release(reservation) {
      const subjects = reservationSubjects(reservation)
      if (localIds.delete(reservation.id)) {
        local.release(reservation.id, localSubjects(subjects))
        return
      }
      const context = contextOf(subjects, reservation.id, estimateOfReservation(reservation))
      await runQuietly(usageScripts.release, subjects, context)
    },

    async extend(reservation) {
      const subjects = reservationSubjects(reservation)
      if (localIds.has(reservation.id)) {
        local.extend(reservation.id, subjects)
        return
      }
      const context = contextOf(subjects, reservation.id, estimateOfReservation(reservation))
      await runQuietly(usageScripts.extend, subjects, context)
    },

    async summary(subject, settings): Promise<KeyUsageSummary> {
      const asked = summarySubject(subject, settings)
      const context = contextOf([asked], '', nothing)
      const shard = shardOf([asked])
      let reply: number[]
      try {
        if (!health.shouldTry(shard)) throw new Error('Redis is not answering')
        reply = await runSeeded(usageScripts.status, context)
        health.succeeded(shard)
      } catch (error) {
        if (!(error instanceof ReseedError)) health.failed(error, shard)
        throw new GatewayError(
          'unavailable',
          'The usage store is unavailable. Try again shortly.',
          {
            cause: error,
            headers: { 'retry-after': '1' },
          },
        )
      }
      const { states, totals } = parseSummary(reply, asked.plan)
      return { ...totals, ...(settings === undefined ? {} : { limits: states }) }
    },
  }
}
