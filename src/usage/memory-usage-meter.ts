import type {
  KeyUsageSummary,
  Reservation,
  ReserveResult,
  UsageMeter,
  UsageRecord,
} from './usage-meter'

/** A memory meter also hands out its most recent records, for tests and dashboards. */
export type MemoryUsageMeter = UsageMeter & {
  /** The most recent records, oldest first. */
  records(): readonly UsageRecord[]
}

/** Options of `createMemoryUsageMeter`. */
export type MemoryUsageMeterOptions = {
  /** How many recent records to keep (default 1000); totals are kept for every request. */
  maxRecords?: number
}

/**
 * A usage meter in process memory: exact totals per key, and a bounded list of recent records.
 * A quota is refused once used plus in-flight reservations reach it; a request admitted just
 * before that may overshoot by its own usage, which is reported, never hidden.
 */
export function createMemoryUsageMeter(options: MemoryUsageMeterOptions = {}): MemoryUsageMeter {
  const maxRecords = options.maxRecords ?? 1000
  const totals = new Map<string, KeyUsageSummary>()
  const held = new Map<string, Reservation>()
  // A ring buffer: once full, each record overwrites the oldest without shifting the rest.
  const recent: UsageRecord[] = []
  let oldest = 0
  let nextReservation = 0

  const totalsOf = (keyId: string): KeyUsageSummary => {
    let summary = totals.get(keyId)
    if (summary === undefined) {
      summary = {
        requests: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedInputTokens: 0,
        totalTokens: 0,
        reservedTokens: 0,
      }
      totals.set(keyId, summary)
    }
    return summary
  }
  const drop = (reservation: Reservation) => {
    if (!held.delete(reservation.id)) return
    totalsOf(reservation.keyId).reservedTokens -= reservation.tokens
  }

  return {
    reserve(request): ReserveResult {
      const summary = totalsOf(request.keyId)
      if (
        request.quotaTokens !== undefined &&
        summary.totalTokens + summary.reservedTokens >= request.quotaTokens
      ) {
        return { granted: false, reason: 'quota_exceeded' }
      }
      nextReservation += 1
      const reservation = {
        id: `${request.requestId}#${nextReservation}`,
        keyId: request.keyId,
        tokens: Math.max(0, request.estimatedTokens),
      }
      held.set(reservation.id, reservation)
      summary.reservedTokens += reservation.tokens
      return { granted: true, reservation }
    },
    settle(reservation, record) {
      drop(reservation)
      const summary = totalsOf(record.keyId)
      summary.requests += 1
      if (record.usage !== undefined) {
        summary.inputTokens += record.usage.inputTokens
        summary.outputTokens += record.usage.outputTokens
        summary.cachedInputTokens += record.usage.cachedInputTokens
        summary.totalTokens += record.usage.totalTokens
      }
      if (recent.length < maxRecords) recent.push(record)
      else if (maxRecords > 0) {
        recent[oldest] = record
        oldest = (oldest + 1) % maxRecords
      }
    },
    release(reservation) {
      drop(reservation)
    },
    summary(keyId) {
      return { ...totalsOf(keyId) }
    },
    records() {
      return [...recent.slice(oldest), ...recent.slice(0, oldest)]
    },
  }
}
