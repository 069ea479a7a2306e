import { budgetPeriod } from '../usage/key-limits'
import type { PlannedSubject } from '../usage/metered-subjects'
import type { ReseedFunction } from '../usage/budget-seeds'
import { usageScripts } from './lua/usage-scripts'
import type { RedisScript } from './redis-script'
import { createStoreHealth, type StoreLogger } from './store-health'
import {
  budgetKindIndex,
  parseSeedKinds,
  type ScriptBudgetKind,
  type ScriptContext,
} from './usage-replies'
import { withTimeout } from './with-timeout'

/** Budgets could not be re-seeded: the request fails closed (503), though Redis answered. */
export class ReseedError extends Error {}

type SeedEntry = { done: Promise<void>; at: number }

/** Runs one usage script on its subjects' keys and returns its reply as integers. */
export type RunUsageScript = (
  script: RedisScript,
  context: ScriptContext,
  ...extra: (string | number)[]
) => Promise<number[]>

/** Options of `createBudgetReseeder`. */
export type BudgetReseederOptions = {
  /** Where a lost budget's usage comes from (`RedisUsageMeterOptions.reseed`). */
  reseed: ReseedFunction | undefined
  /** The longest `reseed` may take. */
  reseedTimeoutMs: number
  /** While `reseed` fails, one call per this interval tries it again. */
  probeIntervalMs: number
  now: () => number
  logger: StoreLogger
  /** The meter's way to run a script (its timeout included). */
  run: RunUsageScript
}

/**
 * The Redis meter's re-seeding of budgets that Redis lost (a restart without persistence, a
 * flush, an eviction): a script that finds a budget missing replies 2 and names it; this asks
 * `reseed` what the key used in the budget's period, writes it with the seed script, and runs the
 * script again. Kept apart from the meter because it has its own health (the re-seed source can
 * be down while Redis answers) and its own sharing of calls between requests.
 */
export function createBudgetReseeder(options: BudgetReseederOptions) {
  const { reseedTimeoutMs, now, run } = options
  const seedHealth = createStoreHealth({
    name: 'Budget re-seed source (reseed)',
    whileDown: 'Keys whose budgets Redis lost are refused (503) until it answers again.',
    probeIntervalMs: options.probeIntervalMs,
    now,
    logger: options.logger,
  })
  // Seeds in flight or just done, by subject, kind and period: the requests that asked together
  // (after a flush, all of a key's requests do) share one `reseed` call.
  const seeding = new Map<string, SeedEntry>()

  /** Asks `reseed` what a subject used in a period (tokens or nano-USD), bounded by its timeout. */
  const usedInPeriod = async (
    subject: PlannedSubject,
    budget: ScriptBudgetKind,
    startMs: number,
  ) => {
    const reseed = options.reseed
    if (reseed === undefined) throw new Error('The Redis usage script asked for a seed.')
    if (!seedHealth.shouldTry()) throw new ReseedError('the re-seed source is not answering')
    try {
      const used = await withTimeout(
        reseed(subject.id, {
          kind: budget.kind,
          startMs,
          measure: budget.measure,
          ...(subject.ref === undefined ? {} : { subject: subject.ref }),
        }),
        reseedTimeoutMs,
      )
      seedHealth.succeeded()
      return Number.isFinite(used) ? Math.max(0, Math.round(used)) : 0
    } catch (error) {
      seedHealth.failed(error)
      throw new ReseedError('re-seeding failed', { cause: error })
    }
  }

  /**
   * Seeds the budgets a reply names. Requests asking at the same time (after a flush, all of a
   * key's requests do) share one `reseed` call: a seed started in the last 5 s is joined, unless
   * this request already waited for it and still found the budget missing (flushed again).
   */
  const seedBudgets = (reply: number[], context: ScriptContext, waited: Set<SeedEntry>) =>
    Promise.all(
      parseSeedKinds(reply).map((budget) => {
        const subject = context.subjects[budget.subject]
        if (subject === undefined) throw new Error('A seed reply named an unknown subject.')
        const period = budgetPeriod(budget.kind, reply[1]!)
        const slot = `${subject.slot}\u0000${budget.measure}\u0000${budget.kind}\u0000${period.id}`
        const recent = seeding.get(slot)
        if (recent !== undefined && !waited.has(recent) && now() - recent.at < 5000) {
          waited.add(recent)
          return recent.done
        }
        if (seeding.size > 1000) {
          for (const [old, entry] of seeding) if (now() - entry.at >= 5000) seeding.delete(old)
        }
        const done = usedInPeriod(subject, budget, period.startMs).then(async (used) => {
          // The seed script works on its first subject: this one alone.
          const one = { ...context, subjects: [subject] }
          await run(usageScripts.seed, one, budgetKindIndex(budget), period.id, used)
        })
        // A failed seed is forgotten at once, so the next request tries again.
        done.catch(() => seeding.delete(slot))
        const entry = { done, at: now() }
        seeding.set(slot, entry)
        waited.add(entry)
        return done
      }),
    )

  /** Runs a script that may ask for budgets to be seeded first, seeding and retrying. */
  const runSeeded = async (script: RedisScript, context: ScriptContext) => {
    const waited = new Set<SeedEntry>()
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const reply = await run(script, context)
      if (reply[0] !== 2) return reply
      await seedBudgets(reply, context, waited)
    }
    throw new ReseedError('Budgets were still missing after seeding them.')
  }

  return { runSeeded }
}

/** The re-seeding of one Redis usage meter. */
export type BudgetReseeder = ReturnType<typeof createBudgetReseeder>
