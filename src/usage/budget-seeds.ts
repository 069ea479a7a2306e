import { budgetPeriod, periodKindOf, type AnyBudgetName, type BudgetPeriodKind } from './key-limits'
import type { MeteredSubjectRef } from './usage-meter'

/** What a budget counts: tokens, or money in nano-USD (10⁻⁹ USD, as charged). */
export type BudgetMeasure = 'tokens' | 'nanoUsd'

/**
 * What a key already used in a budget period, from durable storage (the usage ledger): tokens for
 * a token budget, nano-USD charged for a money budget (`measure`). Counted are requests that
 * *ended* in the period (UTC), so that a request is in exactly one period.
 * `model-gateway/postgres`'s `ledgerReseed(ledger)` is one.
 *
 * A budget of another metered subject (a team, the organisation, an end user) is asked with its
 * id in place of the key's and the subject in `period.subject`; the subject's requests are the
 * ones to count.
 */
export type ReseedFunction = (
  keyId: string,
  period: {
    kind: BudgetPeriodKind
    startMs: number
    measure: BudgetMeasure
    /** The subject whose budget it is, when it is not a key. */
    subject?: MeteredSubjectRef | undefined
  },
) => Promise<number>

/** What a budget counts. */
export function measureOf(name: AnyBudgetName): BudgetMeasure {
  return name.startsWith('usd') ? 'nanoUsd' : 'tokens'
}

/** Thrown when a budget could not be seeded: the request is refused with a 503, and retried later. */
export class BudgetSeedError extends Error {}

/** Options of `createBudgetSeeds`. */
export type BudgetSeedsOptions = {
  reseed: ReseedFunction
  /** The longest one `reseed` call may take. */
  timeoutMs: number
  now: () => number
  /** Stores what a subject (by its slot) used in the period the seed was asked for (`periodId`). */
  apply(slot: string, name: AnyBudgetName, periodId: number, used: number): void
}

/**
 * Seeds each budget of each key (and of each other metered subject) once per process, on its
 * first use: a process that starts (or restarts) must not give a key its spent budget back. After the seed the process counts every
 * request it settles itself, so later periods start from zero as they should. Requests of one key
 * that arrive together share one `reseed` call; a failed call is forgotten, so the next request
 * tries again.
 */
export function createBudgetSeeds(options: BudgetSeedsOptions) {
  const seeded = new Set<string>()
  const pending = new Map<string, Promise<void>>()

  const seedOne = (
    owner: string,
    id: string,
    ref: MeteredSubjectRef | undefined,
    name: AnyBudgetName,
    slot: string,
  ): Promise<void> => {
    const kind = periodKindOf(name)
    const period = budgetPeriod(kind, options.now())
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`reseed did not answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      )
    })
    const done = Promise.race([
      options.reseed(id, {
        kind,
        startMs: period.startMs,
        measure: measureOf(name),
        ...(ref === undefined ? {} : { subject: ref }),
      }),
      timeout,
    ])
      .then((used) => {
        const whole = Number.isFinite(used) ? Math.max(0, Math.round(used)) : 0
        options.apply(owner, name, period.id, whole)
        seeded.add(slot)
      })
      .catch((error: unknown) => {
        const who = ref === undefined ? `key ${id}` : `${ref.kind} ${id}`
        throw new BudgetSeedError(`The ${name} budget of ${who} could not be seeded.`, {
          cause: error,
        })
      })
      .finally(() => {
        clearTimeout(timer)
        pending.delete(slot)
      })
    pending.set(slot, done)
    return done
  }

  return {
    /**
     * The seeds a subject's budgets still need, as one promise; `undefined` when all are seeded
     * (the usual case, so callers stay synchronous). `owner` is where the subject's state lives
     * (`apply` gets it); `id` and `ref` are what `reseed` is asked about (a key: its id alone).
     */
    ensure(
      owner: string,
      names: readonly AnyBudgetName[],
      id: string = owner,
      ref?: MeteredSubjectRef,
    ): Promise<void> | undefined {
      let waits: Promise<void>[] | undefined
      for (const name of names) {
        const slot = `${owner}\u0000${name}`
        if (seeded.has(slot)) continue
        ;(waits ??= []).push(pending.get(slot) ?? seedOne(owner, id, ref, name, slot))
      }
      return waits === undefined ? undefined : Promise.all(waits).then(() => undefined)
    },

    /**
     * Forgets that `owner`'s budgets were seeded, for a subject whose state its meter dropped: its
     * next use asks `reseed` again. A seed still under way is left to finish.
     */
    forget(owner: string, names: readonly AnyBudgetName[]): void {
      for (const name of names) seeded.delete(`${owner}\u0000${name}`)
    },
  }
}
