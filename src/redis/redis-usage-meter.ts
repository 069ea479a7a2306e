import { GatewayError } from '../errors'
import { planLimits, type KeyLimitSettings, type LimitPlan } from '../usage/key-limits'
import type { ReseedFunction } from '../usage/budget-seeds'
import { createLocalLimiter } from '../usage/local-limiter'
import { defaultLeaseMs, estimateOf } from '../usage/memory-usage-meter'
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
import {
  parseRefusals,
  parseCrossings,
  parseStatus,
  parseSummary,
  replyIntegers,
  scriptArgs,
  type ScriptContext,
} from './usage-replies'
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
}

const unavailable: ReserveResult = { granted: false, reason: 'unavailable', retryAfterSeconds: 1 }
const noUsage = [0, 0, 0, 0, 0]

/**
 * A usage meter in Redis, shared by every gateway instance that uses the same Redis and prefix.
 * Each operation is one Lua script (`EVALSHA`, `EVAL` on `NOSCRIPT`) over the key's own
 * hash-tagged keys, so it is atomic and works on Redis Cluster; the clock is Redis's `TIME`, so
 * instances with skewed clocks agree on windows, leases and calendar days.
 *
 * @example
 * import { createClient } from 'redis'
 * import { createRedisUsageMeter } from 'model-gateway/redis'
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect()
 * const usageMeter = createRedisUsageMeter({
 *   client: {
 *     eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
 *     evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
 *   },
 * })
 * const gateway = createGateway({ groups, keys, usageMeter })
 */
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
    keyId: string,
    context: ScriptContext,
    ...extra: (string | number)[]
  ): Promise<number[]> => {
    const call = script.run(options.client, usageKeys(prefix, keyId), scriptArgs(context, ...extra))
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
    plan: LimitPlan,
    reservationId: string,
    estimate: TokenEstimate,
  ): ScriptContext => ({
    plan,
    reseed: options.reseed !== undefined,
    leaseMs,
    doneTtlMs,
    reservationId,
    estimate,
  })
  const partsOf = (reservation: Reservation) => {
    const plan = planLimits(reservation.settings)
    const estimate = reservation.estimate ?? { inputTokens: reservation.tokens, outputTokens: 0 }
    return { plan, estimate, context: contextOf(plan, reservation.id, estimate) }
  }

  const reserveLocally = (
    keyId: string,
    plan: LimitPlan,
    estimate: TokenEstimate,
    reservation: Reservation,
  ): ReserveResult => {
    const hasBudgets = plan.budgets.length > 0 || plan.money.length > 0
    if (hasBudgets && policy.budgets === 'closed') return unavailable
    const hasWindows = plan.windows.length > 0 || plan.concurrency !== undefined
    if (hasWindows && policy.windows === 'closed') return unavailable
    const check = local.reserve(reservation.id, keyId, localShare(plan, policy), estimate)
    if (!check.granted) return refusalResult(check.refusals)
    localIds.add(reservation.id)
    return { granted: true, reservation, limits: check.states }
  }

  /** Runs a settle, release or extend: failures mark Redis down (logged once), never throw. */
  const runQuietly = async (
    script: RedisScript,
    keyId: string,
    context: ScriptContext,
    ...extra: (string | number)[]
  ): Promise<number[] | undefined> => {
    try {
      const reply = await run(script, keyId, context, ...extra)
      health.succeeded()
      return reply
    } catch (error) {
      health.failed(error)
      return undefined
    }
  }

  return {
    async reserve(request) {
      const settings: KeyLimitSettings = {
        limits: request.limits,
        quotaTokens: request.quotaTokens,
        ...(request.budgets === undefined ? {} : { budgets: request.budgets }),
      }
      const plan = planLimits(settings)
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
      if (!health.shouldTry()) return reserveLocally(request.keyId, plan, estimate, reservation)
      const context = contextOf(plan, id, estimate)
      try {
        const reply = await runSeeded(usageScripts.reserve, request.keyId, context)
        health.succeeded()
        if (reply[0] === 1) {
          return { granted: true, reservation, limits: parseStatus(reply, 1, plan).states }
        }
        if (reply[0] === 0) return refusalResult(parseRefusals(reply, plan))
        throw new Error(`Unexpected reply ${reply[0]} from the Redis reserve script.`)
      } catch (error) {
        // Budgets that cannot be re-seeded fail closed; Redis itself answered.
        if (error instanceof ReseedError) return unavailable
        health.failed(error)
        // The reserve may still run late: release it, so it holds nothing until its lease ends.
        void runQuietly(usageScripts.release, request.keyId, context)
        return reserveLocally(request.keyId, plan, estimate, reservation)
      }
    },

    async settle(reservation, record) {
      const { plan, estimate, context } = partsOf(reservation)
      if (localIds.delete(reservation.id)) {
        local.settle(
          reservation.id,
          reservation.keyId,
          localShare(plan, policy),
          estimate,
          record.usage,
        )
        // Redis never held it: count it there as a settle that held nothing.
        context.estimate = { inputTokens: 0, outputTokens: 0, costNano: 0 }
      }
      const usage = record.usage
      const extra =
        usage === undefined
          ? noUsage
          : [1, usage.inputTokens, usage.outputTokens, usage.cachedInputTokens, usage.totalTokens]
      // A record without a price (`null`) counts as unpriced; one from before prices existed
      // (`undefined`) as priced at nothing.
      const cost = record.cost === null || record.cost === undefined ? 0 : record.cost.nanoUsd
      const reply = await runQuietly(
        usageScripts.settle,
        reservation.keyId,
        context,
        ...extra,
        cost,
        record.cost === null ? 0 : 1,
      )
      if (reply === undefined || reply.length <= 2 || plan.money.length === 0) return undefined
      const alerts = parseCrossings(reply, plan)
      return alerts.length === 0 ? undefined : { alerts }
    },

    async release(reservation) {
      const { plan, context } = partsOf(reservation)
      if (localIds.delete(reservation.id)) {
        local.release(reservation.id, reservation.keyId, localShare(plan, policy))
        return
      }
      await runQuietly(usageScripts.release, reservation.keyId, context)
    },

    async extend(reservation) {
      if (localIds.has(reservation.id)) {
        local.extend(reservation.id, reservation.keyId)
        return
      }
      await runQuietly(usageScripts.extend, reservation.keyId, partsOf(reservation).context)
    },

    async summary(keyId, settings): Promise<KeyUsageSummary> {
      const plan = planLimits(settings)
      const context = contextOf(plan, '', { inputTokens: 0, outputTokens: 0 })
      let reply: number[]
      try {
        if (!health.shouldTry()) throw new Error('Redis is not answering')
        reply = await runSeeded(usageScripts.status, keyId, context)
        health.succeeded()
      } catch (error) {
        if (!(error instanceof ReseedError)) health.failed(error)
        throw new GatewayError(
          'unavailable',
          'The usage store is unavailable. Try again shortly.',
          {
            cause: error,
            headers: { 'retry-after': '1' },
          },
        )
      }
      const { states, totals } = parseSummary(reply, plan)
      return { ...totals, ...(settings === undefined ? {} : { limits: states }) }
    },
  }
}
