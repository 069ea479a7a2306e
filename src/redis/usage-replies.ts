import {
  budgetPeriod,
  budgetPeriodKinds,
  type BudgetPeriodKind,
  type LimitName,
  type LimitPlan,
  type WindowLimitName,
} from '../usage/key-limits'
import type { LimitRefusal, LimitState, TokenEstimate } from '../usage/usage-meter'

/** The limit each index of a script reply stands for (1-based in Lua). */
const limitAt: readonly LimitName[] = [
  'requestsPerMinute',
  'inputTokensPerMinute',
  'outputTokensPerMinute',
  'concurrency',
  'tokensPerDay',
  'tokensPerMonth',
  'quota',
]
const windowSlot: Record<WindowLimitName, number> = {
  requestsPerMinute: 0,
  inputTokensPerMinute: 1,
  outputTokensPerMinute: 2,
}
const budgetKinds: readonly BudgetPeriodKind[] = ['day', 'month', 'lifetime']

/** What every script takes besides its own arguments. */
export type ScriptContext = {
  plan: LimitPlan
  reseed: boolean
  leaseMs: number
  doneTtlMs: number
  reservationId: string
  estimate: TokenEstimate
}

/** ARGV 1–13 of every usage script (`src/redis/lua/usage-prelude.ts`). */
export function scriptArgs(context: ScriptContext, ...extra: (string | number)[]): string[] {
  const { plan } = context
  const windows = [0, 0, 0]
  for (const { name, limit } of plan.windows) windows[windowSlot[name]] = limit
  const budgets = [-1, -1, -1]
  for (const { name, limit } of plan.budgets) {
    budgets[budgetKinds.indexOf(budgetPeriodKinds[name])] = limit
  }
  return [
    ...windows,
    plan.concurrency ?? 0,
    ...budgets,
    context.reseed ? 1 : 0,
    context.leaseMs,
    context.doneTtlMs,
    context.reservationId,
    Math.max(0, Math.ceil(context.estimate.inputTokens)),
    Math.max(0, Math.ceil(context.estimate.outputTokens)),
    ...extra,
  ].map(String)
}

/** An integer from a Lua reply, whatever the driver made of it (number, numeric string, bigint). */
export function replyInteger(value: unknown): number {
  const number = typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value
  if (typeof number !== 'number' || !Number.isFinite(number)) {
    throw new Error(`Unexpected reply from the Redis usage script: ${String(value)}`)
  }
  return number
}

/** A script's reply as integers. */
export function replyIntegers(reply: unknown): number[] {
  return Array.isArray(reply) ? reply.map(replyInteger) : [replyInteger(reply)]
}

/**
 * The limit states in a status reply, from `offset` (where the server's clock is): windows,
 * concurrency, budgets, in the order of the local limiter.
 */
export function parseStatus(reply: readonly number[], offset: number, plan: LimitPlan) {
  const now = reply[offset]!
  const at = (index: number) => reply[offset + 1 + index]!
  const states: LimitState[] = []
  for (const { name, limit } of plan.windows) {
    const slot = windowSlot[name] * 2
    states.push({ name, limit, remaining: at(slot), resetInMs: at(slot + 1) })
  }
  if (plan.concurrency !== undefined) {
    states.push({ name: 'concurrency', limit: plan.concurrency, remaining: at(6) })
  }
  for (const { name, limit } of plan.budgets) {
    const kind = budgetPeriodKinds[name]
    const slot = 7 + budgetKinds.indexOf(kind) * 2
    const used = Math.max(0, at(slot))
    const reserved = Math.max(0, at(slot + 1))
    const end = budgetPeriod(kind, now).endMs
    states.push({
      name,
      limit,
      remaining: Math.max(0, limit - used - reserved),
      resetInMs: end === undefined ? undefined : end - now,
      used,
      reserved,
    })
  }
  return { now, states, next: offset + 14 }
}

/**
 * The refusals of a refused reserve: pairs of (limit index, wait ms, -1 = never) after the clock.
 * Indices 8–10 are the budgets of 5–7 refused because requests in flight hold what is left.
 */
export function parseRefusals(reply: readonly number[], plan: LimitPlan): LimitRefusal[] {
  const refusals: LimitRefusal[] = []
  for (let index = 2; index + 1 < reply.length; index += 2) {
    const slot = reply[index]!
    const inFlight = slot > limitAt.length
    const name = limitAt[(inFlight ? slot - 3 : slot) - 1]!
    const wait = reply[index + 1]!
    refusals.push({
      name,
      limit: limitOf(plan, name),
      retryAfterMs: wait < 0 ? undefined : wait,
      ...(inFlight ? { inFlight } : {}),
    })
  }
  return refusals
}

/** The budget kinds a `{2, now, kind…}` reply asks to seed. */
export function parseSeedKinds(reply: readonly number[]): BudgetPeriodKind[] {
  return reply.slice(2).map((kind) => budgetKinds[kind - 1]!)
}

/** The Lua index (1–3) of a budget kind. */
export function budgetKindIndex(kind: BudgetPeriodKind): number {
  return budgetKinds.indexOf(kind) + 1
}

function limitOf(plan: LimitPlan, name: LimitName): number {
  if (name === 'concurrency') return plan.concurrency ?? 0
  return (
    plan.windows.find((entry) => entry.name === name)?.limit ??
    plan.budgets.find((entry) => entry.name === name)?.limit ??
    0
  )
}
