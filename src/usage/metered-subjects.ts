import { planLimits, type KeyLimitSettings, type LimitPlan } from './key-limits'
import type {
  LimitState,
  MeteredSubject,
  MeteredSubjectKind,
  MeteredSubjectRef,
  Reservation,
  ReserveRequest,
  ReserveResult,
  SubjectLimits,
} from './usage-meter'

/**
 * One subject of a reservation as the meters work on it: who it is, where its state lives in a
 * limiter, and its limits, planned.
 */
export type PlannedSubject = {
  /** `undefined` for the key, so that the key's refusals and alerts read as they always did. */
  ref: MeteredSubjectRef | undefined
  kind: MeteredSubjectKind
  id: string
  /** The key the subject is charged with (an end user's counters live beside its key's). */
  keyId: string
  /** The subject's state in a local limiter: the key's id, another subject's kind and id. */
  slot: string
  settings: KeyLimitSettings
  plan: LimitPlan
}

/**
 * Where a subject's state lives in a local limiter: a key under its id, as before subjects; an end
 * user under its key and its own id.
 */
export function subjectSlot(kind: MeteredSubjectKind, id: string, keyId: string): string {
  if (kind === 'key') return id
  // A NUL starts no key id a config or database holds, so the namespaces never meet.
  return kind === 'end-user' ? `\u0000${kind}\u0000${keyId}\u0000${id}` : `\u0000${kind}\u0000${id}`
}

/**
 * The subject `summary` is asked about: a key by its id, or by kind and id. An end user needs the
 * key it uses (`keyId`), since its counters are the key's end user's.
 */
export function summarySubject(
  subject: string | MeteredSubjectRef,
  settings: KeyLimitSettings | undefined,
): PlannedSubject {
  if (typeof subject === 'string' || subject.kind === 'key') {
    const keyId = typeof subject === 'string' ? subject : subject.id
    return keySubject(keyId, settings ?? {})
  }
  const keyId = subject.keyId
  if (subject.kind === 'end-user' && keyId === undefined) {
    throw new TypeError("An end user's summary names the key it uses (keyId).")
  }
  return otherSubject({ kind: subject.kind, id: subject.id, ...settings }, keyId ?? '')
}

/** A subject's limits as a meter's settings. */
export function settingsOf(subject: {
  quotaTokens?: number | undefined
  limits?: ReserveRequest['limits']
  budgets?: ReserveRequest['budgets']
}): KeyLimitSettings {
  return {
    limits: subject.limits,
    quotaTokens: subject.quotaTokens,
    ...(subject.budgets === undefined ? {} : { budgets: subject.budgets }),
  }
}

/** The key of a reservation as a planned subject. */
export function keySubject(keyId: string, settings: KeyLimitSettings): PlannedSubject {
  const plan = planLimits(settings)
  return { ref: undefined, kind: 'key', id: keyId, keyId, slot: keyId, settings, plan }
}

/** A subject besides the key, planned; `keyId` is the key it is charged with. */
export function otherSubject(subject: MeteredSubject, keyId: string): PlannedSubject {
  const settings = settingsOf(subject)
  const { kind, id } = subject
  return {
    ref: { kind, id },
    kind,
    id,
    keyId,
    slot: subjectSlot(kind, id, keyId),
    settings,
    plan: planLimits(settings),
  }
}

/**
 * Every subject of a request or a reservation, the key first. A second `key` subject is refused:
 * a reservation charges one key, the one its records carry.
 */
export function plannedSubjects(
  keyId: string,
  settings: KeyLimitSettings,
  others: readonly MeteredSubject[] | undefined,
): PlannedSubject[] {
  const subjects = [keySubject(keyId, settings)]
  if (others === undefined) return subjects
  for (const subject of others) {
    if (subject.kind === 'key') {
      throw new TypeError('A reservation charges one key: name it by keyId, not in subjects.')
    }
    subjects.push(otherSubject(subject, keyId))
  }
  return subjects
}

/** The subjects of a held reservation, with the limits it was checked against. */
export function reservationSubjects(reservation: Reservation): PlannedSubject[] {
  return plannedSubjects(reservation.keyId, reservation.settings ?? {}, reservation.subjects)
}

/**
 * A granted reserve's answer: the key's limits for the headers, and the other subjects' after
 * them when there are any (the reservation then carries them, for its settle).
 */
export function grantedResult(
  reservation: Reservation,
  subjects: readonly PlannedSubject[],
  states: readonly (readonly LimitState[])[],
  others: readonly MeteredSubject[] | undefined,
): ReserveResult {
  if (subjects.length === 1) return { granted: true, reservation, limits: states[0] }
  reservation.subjects = others
  const subjectLimits: SubjectLimits[] = []
  for (let index = 1; index < subjects.length; index += 1) {
    subjectLimits.push({ subject: subjects[index]!.ref!, limits: states[index] ?? [] })
  }
  return { granted: true, reservation, limits: states[0], subjectLimits }
}
