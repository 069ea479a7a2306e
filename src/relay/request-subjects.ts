import type { KeyRecord } from '../auth/key-store'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { MeteredSubject } from '../usage/usage-meter'

/**
 * The organisation's subject id. A gateway serves one organisation; the id only names its counters
 * (`{o:default}` in Redis) and its refusals ("The organisation").
 */
export const organisationId = 'default'

/**
 * The subjects a request is charged to besides its key, in the order the meter checks them (ADR
 * 0028: the key with its end user first, then the team, then the organisation):
 * - the end user, when the key has `perUser` limits and the request names one;
 * - the key's team, when it has a limit of its own;
 * - the organisation, when it has a budget.
 *
 * A level without a limit is left out (it has nothing to check, and each subject costs its keys in
 * the meter's script); every level that has one is always there — no level stands in for another.
 * `undefined` when there are none, so a key alone costs what it always did.
 */
export function requestSubjects(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
): MeteredSubject[] | undefined {
  let subjects: MeteredSubject[] | undefined
  const perUser = key.perUser
  const endUser = scope.endUser
  if (perUser !== undefined && endUser !== undefined && hasLimits(perUser)) {
    subjects = [
      {
        kind: 'end-user',
        id: endUser,
        keyId: key.id,
        limits: perUser.limits,
        budgets: perUser.budgets,
      },
    ]
  }
  const team = scope.team
  if (team !== undefined && (team.quotaTokens !== undefined || hasLimits(team))) {
    ;(subjects ??= []).push({
      kind: 'team',
      id: team.id,
      quotaTokens: team.quotaTokens,
      limits: team.limits,
      budgets: team.budgets,
    })
  }
  const organisation = runtime.organisation
  if (organisation?.budgets !== undefined && organisation.budgets.length > 0) {
    ;(subjects ??= []).push({
      kind: 'organisation',
      id: organisationId,
      budgets: organisation.budgets,
    })
  }
  return subjects
}

/** Whether any subject has a money budget: the request then holds a cost estimate. */
export function subjectsSpendMoney(subjects: readonly MeteredSubject[] | undefined): boolean {
  return subjects?.some((subject) => (subject.budgets?.length ?? 0) > 0) ?? false
}

function hasLimits(subject: {
  limits?: object | undefined
  budgets?: readonly unknown[] | undefined
}) {
  const limits = subject.limits
  const limited = limits !== undefined && Object.values(limits).some((value) => value !== undefined)
  return limited || (subject.budgets?.length ?? 0) > 0
}
