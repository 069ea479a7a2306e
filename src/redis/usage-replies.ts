import type { BudgetMeasure } from '../usage/budget-seeds'
import {
  budgetPeriod,
  budgetPeriodKinds,
  moneyPeriodKinds,
  periodKindOf,
  type AnyBudgetName,
  type BudgetPeriodKind,
  type LimitName,
  type LimitPlan,
  type WindowLimitName,
} from '../usage/key-limits'
import type {
  BudgetCrossing,
  KeyUsageSummary,
  LimitRefusal,
  LimitState,
  TokenEstimate,
} from '../usage/usage-meter'

/**
 * The limit each refusal index of a reserve reply stands for (1-based in Lua), and whether it is
 * a budget refused because requests in flight hold what is left.
 */
const refusalAt: readonly { name: LimitName; inFlight?: true }[] = [
  { name: 'requestsPerMinute' },
  { name: 'inputTokensPerMinute' },
  { name: 'outputTokensPerMinute' },
  { name: 'concurrency' },
  { name: 'tokensPerDay' },
  { name: 'tokensPerMonth' },
  { name: 'quota' },
  { name: 'tokensPerDay', inFlight: true },
  { name: 'tokensPerMonth', inFlight: true },
  { name: 'quota', inFlight: true },
  { name: 'usdPerDay' },
  { name: 'usdPerMonth' },
  { name: 'usdLifetime' },
  { name: 'usdPerDay', inFlight: true },
  { name: 'usdPerMonth', inFlight: true },
  { name: 'usdLifetime', inFlight: true },
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

/** ARGV 1–20 of every usage script (`src/redis/lua/usage-prelude.ts`). */
export function scriptArgs(context: ScriptContext, ...extra: (string | number)[]): string[] {
  const { plan } = context
  const windows = [0, 0, 0]
  for (const { name, limit } of plan.windows) windows[windowSlot[name]] = limit
  const budgets = [-1, -1, -1]
  for (const { name, limit } of plan.budgets) {
    budgets[budgetKinds.indexOf(budgetPeriodKinds[name])] = limit
  }
  const money = [-1, -1, -1]
  const alerts = [-1, -1, -1]
  for (const { name, limit, alertAt } of plan.money) {
    const slot = budgetKinds.indexOf(moneyPeriodKinds[name])
    money[slot] = limit
    if (alertAt !== undefined) alerts[slot] = alertAt
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
    ...money,
    Math.max(0, Math.ceil(context.estimate.costNano ?? 0)),
    ...alerts,
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
  const budgetState = (name: AnyBudgetName, limit: number, slot: number) => {
    const used = Math.max(0, at(slot))
    const reserved = Math.max(0, at(slot + 1))
    const end = budgetPeriod(periodKindOf(name), now).endMs
    states.push({
      name,
      limit,
      remaining: Math.max(0, limit - used - reserved),
      resetInMs: end === undefined ? undefined : end - now,
      used,
      reserved,
    })
  }
  for (const { name, limit } of plan.budgets) {
    budgetState(name, limit, 7 + budgetKinds.indexOf(budgetPeriodKinds[name]) * 2)
  }
  for (const { name, limit } of plan.money) {
    budgetState(name, limit, 13 + budgetKinds.indexOf(moneyPeriodKinds[name]) * 2)
  }
  return { now, states, next: offset + 20 }
}

/**
 * A status reply read whole: the limit states, then the key's totals (requests, tokens, tokens
 * held, cost and unpriced requests), each 0 when the script left it out.
 */
export function parseSummary(
  reply: readonly number[],
  plan: LimitPlan,
): { states: LimitState[]; totals: Omit<KeyUsageSummary, 'limits'> } {
  const status = parseStatus(reply, 1, plan)
  const [
    requests,
    inputTokens,
    outputTokens,
    cachedInputTokens,
    totalTokens,
    reserved,
    costNanoUsd,
    unpricedRequests,
  ] = reply.slice(status.next)
  return {
    states: status.states,
    totals: {
      requests: requests ?? 0,
      inputTokens: inputTokens ?? 0,
      outputTokens: outputTokens ?? 0,
      cachedInputTokens: cachedInputTokens ?? 0,
      totalTokens: totalTokens ?? 0,
      reservedTokens: reserved ?? 0,
      costNanoUsd: costNanoUsd ?? 0,
      unpricedRequests: unpricedRequests ?? 0,
    },
  }
}

/**
 * The refusals of a refused reserve: pairs of (limit index, wait ms, -1 = never) after the clock
 * (`refusalAt` says what each index is).
 */
export function parseRefusals(reply: readonly number[], plan: LimitPlan): LimitRefusal[] {
  const refusals: LimitRefusal[] = []
  for (let index = 2; index + 1 < reply.length; index += 2) {
    const slot = refusalAt[reply[index]! - 1]
    if (slot === undefined) throw new Error(`Unknown limit ${reply[index]} in a reserve reply.`)
    const wait = reply[index + 1]!
    refusals.push({
      name: slot.name,
      limit: limitOf(plan, slot.name),
      retryAfterMs: wait < 0 ? undefined : wait,
      ...(slot.inFlight ? { inFlight: true } : {}),
    })
  }
  return refusals
}

/** A budget kind of the scripts (1–6): its period and what it counts. */
export type ScriptBudgetKind = { kind: BudgetPeriodKind; measure: BudgetMeasure }

/** The budget kinds a `{2, now, kind…}` reply asks to seed. */
export function parseSeedKinds(reply: readonly number[]): ScriptBudgetKind[] {
  return reply.slice(2).map((index) => ({
    kind: budgetKinds[(index - 1) % 3]!,
    measure: index > 3 ? 'nanoUsd' : 'tokens',
  }))
}

/** The Lua index (1–6) of a budget kind. */
export function budgetKindIndex(budget: ScriptBudgetKind): number {
  return budgetKinds.indexOf(budget.kind) + 1 + (budget.measure === 'nanoUsd' ? 3 : 0)
}

/** The money budgets a settle reply (`{1, now, kind, spent, …}`) says crossed their alert threshold. */
export function parseCrossings(reply: readonly number[], plan: LimitPlan): BudgetCrossing[] {
  const now = reply[1]!
  const crossings: BudgetCrossing[] = []
  for (let index = 2; index + 1 < reply.length; index += 2) {
    const kind = budgetKinds[reply[index]! - 4]
    const budget = plan.money.find((item) => moneyPeriodKinds[item.name] === kind)
    if (kind === undefined || budget === undefined || budget.alertAt === undefined) continue
    const end = budgetPeriod(kind, now).endMs
    crossings.push({
      per: kind,
      limitNanoUsd: budget.limit,
      alertAtNanoUsd: budget.alertAt,
      spentNanoUsd: reply[index + 1]!,
      resetInMs: end === undefined ? undefined : end - now,
    })
  }
  return crossings
}

function limitOf(plan: LimitPlan, name: LimitName): number {
  if (name === 'concurrency') return plan.concurrency ?? 0
  return (
    plan.windows.find((entry) => entry.name === name)?.limit ??
    plan.budgets.find((entry) => entry.name === name)?.limit ??
    plan.money.find((entry) => entry.name === name)?.limit ??
    0
  )
}
