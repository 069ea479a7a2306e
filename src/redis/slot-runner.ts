import type { PlannedSubject } from '../usage/metered-subjects'
import { refusalResult } from '../usage/refusal'
import type { BudgetCrossing, LimitState, ReserveResult } from '../usage/usage-meter'
import type { RunUsageScript } from './budget-reseeder'
import { usageScripts } from './lua/usage-scripts'
import type { RedisScript } from './redis-script'
import { isCrossSlotError, slotGroups } from './slot-groups'
import { subjectTag } from './usage-keys'
import type { StoreHealth, StoreLogger } from './store-health'
import { parseCrossings, parseGranted, parseRefusals, type ScriptContext } from './usage-replies'

/** Options of `createSlotRunner`. */
export type SlotRunnerOptions = {
  /** Runs one script (the meter's, with its timeout). */
  run: RunUsageScript
  /** Runs one script that may ask for budgets to be seeded first. */
  runSeeded: (script: RedisScript, context: ScriptContext) => Promise<number[]>
  health: StoreHealth
  logger: StoreLogger
  /** Start with one script per hash slot (Redis Cluster). */
  cluster: boolean
}

/** A reply of one slot group; `undefined` when the call failed. */
export type GroupReply = { group: readonly PlannedSubject[]; reply: number[] | undefined }

/** The subjects of a slot group Redis did not answer for. */
export const failedGroup = ({ group, reply }: GroupReply): readonly PlannedSubject[] =>
  reply === undefined ? group : []

/** The alert thresholds settle replies say were crossed. */
export function crossingsOf(replies: readonly GroupReply[]): BudgetCrossing[] {
  const alerts: BudgetCrossing[] = []
  for (const { group, reply } of replies) {
    if (reply !== undefined && reply.length > 2) alerts.push(...parseCrossings(reply, group))
  }
  return alerts
}

/** What a shared reserve answered: every subject's limits, or the refusal. */
export type SharedReserve =
  { granted: true; states: LimitState[][] } | { granted: false; refused: ReserveResult }

/**
 * How the Redis meter runs a script over a request's subjects: one script for all of them, or,
 * on Redis Cluster, one per hash slot (the key with its end users, a team, the organisation),
 * since a script may touch one slot only. A meter not told it runs on Cluster learns it from the
 * first `CROSSSLOT` answer (Redis refuses such a script before running it, so nothing was
 * written), says so once, and goes on one slot at a time.
 */
export function createSlotRunner(options: SlotRunnerOptions) {
  const { run, runSeeded, health, logger } = options
  let perSlot = options.cluster

  /**
   * The shard a call's health is kept under: on Cluster the hash tag of its first subject (a
   * master serves it, and the others may well be up); one shard of all otherwise.
   */
  const shardOf = (subjects: readonly PlannedSubject[]): string =>
    perSlot && subjects.length > 0 ? subjectTag(subjects[0]!) : ''

  /**
   * True when an answer shows Redis is a Cluster and the call's subjects span slots: the call is
   * to be made again one slot at a time (calls made together all see it; the log line is once).
   */
  const crossedSlots = (error: unknown, subjects: readonly PlannedSubject[]): boolean => {
    if (!isCrossSlotError(error) || slotGroups(subjects, true).length === 1) return false
    if (!perSlot) {
      perSlot = true
      logger.warn(
        '[model-gateway] Redis answered CROSSSLOT: it is a Cluster. The usage meter now reserves the subjects of a request one hash slot at a time (pass cluster: true to start that way).',
      )
    }
    return true
  }

  /**
   * Runs a settle, release or extend over every slot group of the subjects: failures mark Redis
   * down (logged once), never throw. Settles need no atomicity across groups: each subject
   * counts a reservation id once.
   */
  const runQuietly = async (
    script: RedisScript,
    subjects: readonly PlannedSubject[],
    context: ScriptContext,
    ...extra: (string | number)[]
  ): Promise<GroupReply[]> => {
    const once = async (group: readonly PlannedSubject[]): Promise<GroupReply | undefined> => {
      try {
        const groupContext = group === context.subjects ? context : { ...context, subjects: group }
        const reply = await run(script, groupContext, ...extra)
        health.succeeded(shardOf(group))
        return { group, reply }
      } catch (error) {
        if (crossedSlots(error, group)) return undefined
        health.failed(error, shardOf(group))
        return { group, reply: undefined }
      }
    }
    const groups = slotGroups(subjects, perSlot)
    if (groups.length === 1) {
      const whole = await once(groups[0]!)
      if (whole !== undefined) return [whole]
    }
    return Promise.all(
      slotGroups(subjects, perSlot).map(
        async (group) => (await once(group)) ?? { group, reply: undefined },
      ),
    )
  }

  /**
   * Reserves every subject: in one script, or one slot group after another in order, releasing
   * the groups already held when a later one refuses or fails, so that all stay held or none.
   * Holds of a group released this way were visible to other requests for one round trip: they
   * may refuse one (held, retry in a second), never admit one too many. The refusal waits for the
   * release, so its own caller never sees them.
   */
  const reserveShared = async (
    subjects: readonly PlannedSubject[],
    context: ScriptContext,
  ): Promise<SharedReserve> => {
    const held: ScriptContext[] = []
    const states: LimitState[][] = []
    // Awaited: a refused request's caller (and its immediate retry) never sees its own holds.
    const undo = () =>
      Promise.all(held.map((group) => runQuietly(usageScripts.release, group.subjects, group)))
    for (const group of slotGroups(subjects, perSlot)) {
      // One group (off Cluster, or one subject) is the whole context: nothing to copy.
      const groupContext = group === subjects ? context : { ...context, subjects: group }
      let reply: number[]
      try {
        reply = await runSeeded(usageScripts.reserve, groupContext)
      } catch (error) {
        if (crossedSlots(error, group)) return reserveShared(subjects, context)
        await undo()
        throw error
      }
      if (reply[0] === 1) {
        held.push(groupContext)
        for (const groupStates of parseGranted(reply, group)) states.push(groupStates)
        continue
      }
      await undo()
      if (reply[0] === 0)
        return { granted: false, refused: refusalResult(parseRefusals(reply, group)) }
      throw new Error(`Unexpected reply ${reply[0]} from the Redis reserve script.`)
    }
    return { granted: true, states }
  }

  return { runQuietly, reserveShared, shardOf }
}
