import type { PlannedSubject } from '../usage/metered-subjects'
import { subjectTag } from './usage-keys'

/**
 * A request's subjects split by hash tag, for Redis Cluster, where one script may touch one slot
 * only: the key with its end users (they share the key's tag), then each team and organisation
 * in the order the request lists them. With one subject, or off Cluster, one group of all.
 */
export function slotGroups(
  subjects: readonly PlannedSubject[],
  perSlot: boolean,
): (readonly PlannedSubject[])[] {
  if (!perSlot || subjects.length === 1) return [subjects]
  const groups = new Map<string, PlannedSubject[]>()
  for (const subject of subjects) {
    const tag = subjectTag(subject)
    const group = groups.get(tag)
    if (group === undefined) groups.set(tag, [subject])
    else group.push(subject)
  }
  return [...groups.values()]
}

/** True for Redis Cluster's answer to a script whose keys are in several slots. */
export function isCrossSlotError(error: unknown): boolean {
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : undefined
  return message !== undefined && /(^|\W)CROSSSLOT\b/.test(message)
}
