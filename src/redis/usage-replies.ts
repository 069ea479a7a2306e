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
import type { PlannedSubject } from '../usage/metered-subjects'
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
  /** The subjects the script works on, the key (when it is one of them) first. */
  subjects: readonly PlannedSubject[]
  reseed: boolean
  leaseMs: number
  doneTtlMs: number
  reservationId: string
  estimate: TokenEstimate
}

/** The thirteen arguments of one subject: its windows, concurrency, budgets, alert thresholds. */
function pushSubjectArgs(args: (string | number)[], plan: LimitPlan): void {
  const at = args.length
  args.push(0, 0, 0, plan.concurrency ?? 0, -1, -1, -1, -1, -1, -1, -1, -1, -1)
  for (const { name, limit } of plan.windows) args[at + windowSlot[name]] = limit
  for (const { name, limit } of plan.budgets) {
    args[at + 4 + budgetKinds.indexOf(budgetPeriodKinds[name])] = limit
  }
  for (const { name, limit, alertAt } of plan.money) {
    const slot = budgetKinds.indexOf(moneyPeriodKinds[name])
    args[at + 7 + slot] = limit
    if (alertAt !== undefined) args[at + 10 + slot] = alertAt
  }
}

/** The arguments of a usage script (`src/redis/lua/usage-prelude.ts`), its own (`extra`) last. */
export function scriptArgs(context: ScriptContext, ...extra: (string | number)[]): string[] {
  const args: (string | number)[] = [
    context.reseed ? 1 : 0,
    context.leaseMs,
    context.doneTtlMs,
    context.reservationId,
    Math.max(0, Math.ceil(context.estimate.inputTokens)),
    Math.max(0, Math.ceil(context.estimate.outputTokens)),
    Math.max(0, Math.ceil(context.estimate.costNano ?? 0)),
    context.subjects.length,
  ]
  for (const subject of context.subjects) pushSubjectArgs(args, subject.plan)
  for (const value of extra) args.push(value)
  return args.map(String)
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

/** The numbers a status reply gives per subject. */
export const statusWidth = 19

/**
 * One subject's limit states in a reply, from `start` (its first of `statusWidth` numbers):
 * windows, concurrency, budgets, in the order of the local limiter; `now` is the server's clock.
 */
export function parseStatus(
  reply: readonly number[],
  start: number,
  plan: LimitPlan,
  now: number,
): LimitState[] {
  const at = (index: number) => reply[start + index]!
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
  return states
}

/** Every subject's limit states in a granted reserve reply (`{1, now, status…}`), in order. */
export function parseGranted(
  reply: readonly number[],
  subjects: readonly PlannedSubject[],
): LimitState[][] {
  return subjects.map((subject, index) =>
    parseStatus(reply, 2 + index * statusWidth, subject.plan, reply[1]!),
  )
}

/**
 * A status reply for one subject read whole: the limit states, then the subject's totals
 * (requests, tokens, tokens held, cost, unpriced requests, response-cache hits and what they
 * saved), each 0 when the script left it out.
 */
export function parseSummary(
  reply: readonly number[],
  plan: LimitPlan,
): { states: LimitState[]; totals: Omit<KeyUsageSummary, 'limits'> } {
  const states = parseStatus(reply, 2, plan, reply[1]!)
  const [
    requests,
    inputTokens,
    outputTokens,
    cachedInputTokens,
    totalTokens,
    reserved,
    costNanoUsd,
    unpricedRequests,
    cacheHits,
    savedCostNanoUsd,
  ] = reply.slice(2 + statusWidth)
  return {
    states,
    totals: {
      requests: requests ?? 0,
      inputTokens: inputTokens ?? 0,
      outputTokens: outputTokens ?? 0,
      cachedInputTokens: cachedInputTokens ?? 0,
      totalTokens: totalTokens ?? 0,
      reservedTokens: reserved ?? 0,
      costNanoUsd: costNanoUsd ?? 0,
      unpricedRequests: unpricedRequests ?? 0,
      cacheHits: cacheHits ?? 0,
      savedCostNanoUsd: savedCostNanoUsd ?? 0,
    },
  }
}

/**
 * The refusals of a refused reserve: triples of (subject, limit index, wait ms, -1 = never) after
 * the clock (`refusalAt` says what each index is). A refusal of a subject other than the key names
 * it.
 */
export function parseRefusals(
  reply: readonly number[],
  subjects: readonly PlannedSubject[],
): LimitRefusal[] {
  const refusals: LimitRefusal[] = []
  for (let index = 2; index + 2 < reply.length; index += 3) {
    const subject = subjects[reply[index]! - 1]
    const slot = refusalAt[reply[index + 1]! - 1]
    if (slot === undefined || subject === undefined) {
      throw new Error(`Unknown limit ${reply[index + 1]} in a reserve reply.`)
    }
    const wait = reply[index + 2]!
    refusals.push({
      name: slot.name,
      limit: limitOf(subject.plan, slot.name),
      retryAfterMs: wait < 0 ? undefined : wait,
      ...(slot.inFlight ? { inFlight: true } : {}),
      ...(subject.ref === undefined ? {} : { subject: subject.ref }),
    })
  }
  return refusals
}

/** A budget kind of the scripts (1–6): its period and what it counts. */
export type ScriptBudgetKind = { kind: BudgetPeriodKind; measure: BudgetMeasure }

/** A budget a `{2, now, subject, kind…}` reply asks to seed: its subject (0-based) and kind. */
export type SeedRequest = ScriptBudgetKind & { subject: number }

/** The budgets a `{2, now, subject, kind…}` reply asks to seed. */
export function parseSeedKinds(reply: readonly number[]): SeedRequest[] {
  const seeds: SeedRequest[] = []
  for (let index = 2; index + 1 < reply.length; index += 2) {
    const kind = reply[index + 1]!
    seeds.push({
      subject: reply[index]! - 1,
      kind: budgetKinds[(kind - 1) % 3]!,
      measure: kind > 3 ? 'nanoUsd' : 'tokens',
    })
  }
  return seeds
}

/** The Lua index (1–6) of a budget kind. */
export function budgetKindIndex(budget: ScriptBudgetKind): number {
  return budgetKinds.indexOf(budget.kind) + 1 + (budget.measure === 'nanoUsd' ? 3 : 0)
}

/**
 * The money budgets a settle reply (`{1, now, subject, kind, spent, …}`) says crossed their alert
 * threshold.
 */
export function parseCrossings(
  reply: readonly number[],
  subjects: readonly PlannedSubject[],
): BudgetCrossing[] {
  const now = reply[1]!
  const crossings: BudgetCrossing[] = []
  for (let index = 2; index + 2 < reply.length; index += 3) {
    const subject = subjects[reply[index]! - 1]
    const kind = budgetKinds[reply[index + 1]! - 4]
    const budget = subject?.plan.money.find((item) => moneyPeriodKinds[item.name] === kind)
    if (kind === undefined || budget === undefined || budget.alertAt === undefined) continue
    const end = budgetPeriod(kind, now).endMs
    crossings.push({
      ...(subject!.ref === undefined ? {} : { subject: subject!.ref }),
      per: kind,
      limitNanoUsd: budget.limit,
      alertAtNanoUsd: budget.alertAt,
      spentNanoUsd: reply[index + 2]!,
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
