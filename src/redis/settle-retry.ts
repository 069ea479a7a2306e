import type { StoreLogger } from './store-health'

/** Options of `createSettleRetries`. */
export type SettleRetryOptions = {
  /** How long after its first failure a settle is tried again; 0: never. */
  windowMs: number
  /** The most settles being retried at once; a settle past it is given up at once. */
  maxRetrying: number
  logger: StoreLogger
  now: () => number
  /** Waits (a timer; tests may pass their own). */
  sleep?: ((ms: number) => Promise<void>) | undefined
}

/** What one attempt left: the parts Redis did not take, and what the parts it took answered. */
export type SettleAttempt<Part, Answer> = { failed: Part[]; answers: Answer[] }

/** The first wait before a settle is tried again, doubled each time up to `maxDelayMs`. */
const firstDelayMs = 250
const maxDelayMs = 2_000
/** Give-ups are logged at most once per this interval, with their count since the last line. */
const logEveryMs = 10_000

const timer = (ms: number) =>
  new Promise<void>((resolve) => {
    const handle = setTimeout(resolve, ms)
    // A retry must not keep a process alive that is otherwise done (`close()` waits for it).
    ;(handle as { unref?: () => void }).unref?.()
  })

/**
 * Settles that Redis did not take, tried again until it does. A settle that times out or meets
 * a master in failover would otherwise be dropped: the request stays in the durable ledger, but
 * the shared budgets and totals undercount it for the rest of their period. Trying again is safe
 * because each subject counts a reservation id once (the script's `done` set outlives any retry
 * window: at least 10 minutes), so a settle that did run before its answer was lost adds nothing
 * the second time. The gateway writes a request's ledger row only after its retries end, so a
 * budget re-seeded from the ledger meanwhile never counts it twice.
 *
 * Bounded twice: in time (`windowMs`, past which a settle is given up and counted in one log line)
 * and in number (`maxRetrying`), so an outage holds at most that many settles in memory.
 */
export function createSettleRetries(options: SettleRetryOptions) {
  const sleep = options.sleep ?? timer
  let retrying = 0
  let draining = false
  const wakers = new Set<() => void>()
  /** A wait that `drain()` ends at once. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        wakers.delete(wake)
        resolve()
      }
      wakers.add(wake)
      void sleep(ms).then(wake)
    })
  let givenUp = 0
  let lastLogAt = Number.NEGATIVE_INFINITY

  const giveUp = (count: number) => {
    givenUp += count
    const at = options.now()
    if (at - lastLogAt < logEveryMs) return
    lastLogAt = at
    options.logger.error(
      `[model-gateway] Redis usage store: ${givenUp} settle(s) could not be counted in Redis within ${options.windowMs} ms and were given up; the ledger keeps their usage, and shared budgets undercount them until re-seeded.`,
    )
    givenUp = 0
  }

  return {
    /**
     * The gateway is closing: every settle being retried is tried once more now and then given up,
     * and a settle that fails from now on is given up at once.
     */
    drain(): void {
      draining = true
      for (const wake of [...wakers]) wake()
    },

    /** Settles being retried now. */
    get retrying(): number {
      return retrying
    },

    /**
     * Tries `attempt` on the parts a first attempt left failed, with growing waits, until none is
     * left or the window ends. Answers every answer collected on the way; `undefined` (and the
     * parts given up) when the window is 0 or `maxRetrying` settles are already being retried.
     */
    retry<Part, Answer>(
      failed: Part[],
      attempt: (parts: Part[]) => Promise<SettleAttempt<Part, Answer>>,
    ): Promise<Answer[]> | undefined {
      if (failed.length === 0) return undefined
      if (draining || options.windowMs <= 0 || retrying >= options.maxRetrying) {
        giveUp(1)
        return undefined
      }
      retrying += 1
      const deadline = options.now() + options.windowMs
      const run = async (): Promise<Answer[]> => {
        const answers: Answer[] = []
        let parts = failed
        for (let delay = firstDelayMs; ; delay = Math.min(maxDelayMs, delay * 2)) {
          const wait = Math.min(delay, deadline - options.now())
          if (wait <= 0) break
          if (!draining) await pause(wait)
          const last = draining
          const result = await attempt(parts)
          answers.push(...result.answers)
          parts = result.failed
          if (parts.length === 0) return answers
          if (last) break
        }
        giveUp(1)
        return answers
      }
      return run().finally(() => {
        retrying -= 1
      })
    },
  }
}
