import { logField } from '../../observability/log-field'
import type { RequestEvent } from '../../observability/request-event'
import type { UpstreamAttempt } from '../../usage/upstream-attempt'
import { formatUsd, usdToNano } from '../../pricing/price-units'
import type { BudgetAlert } from '../../usage/budget-alert'

/**
 * One log line per completed request. It is built only from the event, which carries the masked
 * key (`sk-…abcd`, or `sk-mg-<id>-…` for a database key, as `keys list` shows it) and never the
 * full one. Every field goes through `logField`, since most of them
 * come from the client (model, path, method, the key's last characters, error messages that quote
 * them): a value with a line break, a space or an ANSI escape is quoted and escaped, so it cannot
 * forge a line or a field.
 */
export function formatRequestLog(event: RequestEvent): string {
  const parts = [
    isoTime(event.startedAt),
    logField(event.requestId),
    String(event.status),
    logField(event.method),
    logField(event.path),
    `key=${event.key === undefined ? '-' : logField(event.key)}`,
  ]
  if (event.model !== undefined) parts.push(`model=${logField(event.model)}`)
  if (event.group !== undefined) parts.push(`group=${logField(event.group)}`)
  // Retries, fallbacks and attempts sent while resting only: one attempt is the usual case,
  // already said by group and status.
  const attempts = event.attempts
  if (attempts !== undefined && (attempts.length > 1 || attempts[0]?.resting === true)) {
    parts.push(`attempts=${logField(attempts.map(formatAttempt).join(','))}`)
  }
  // Why the answering upstream was chosen, when it was chosen among several.
  const last = attempts?.at(-1)
  if (last?.strategy !== undefined && last.strategy !== 'only') {
    const score = last.score === undefined ? '' : `:${formatScore(last.score)}`
    parts.push(`route=${logField(`tier${last.tier ?? 0}:${last.strategy}${score}`)}`)
  }
  if (event.stream === true) parts.push('stream')
  if (event.usage !== undefined) {
    parts.push(`tokens=${event.usage.inputTokens}+${event.usage.outputTokens}`)
  }
  // What it cost at the answering model's price; `unpriced` when that model has none.
  if (event.cost === null) parts.push('cost=unpriced')
  else if (event.cost !== undefined) parts.push(`cost=${formatUsd(event.cost.nanoUsd)}`)
  // Which fields a translated request had changed for its model (the details are on the event).
  if (event.adjustments !== undefined && event.adjustments.length > 0) {
    const fields = [...new Set(event.adjustments.map((item) => item.field))].join(',')
    parts.push(`adjusted=${logField(fields)}`)
  }
  parts.push(event.outcome, `${event.durationMs}ms`)
  if (event.error !== undefined) parts.push(`error=${logField(event.error.message)}`)
  // With telemetry on: the request span's ids, so that a log line finds its trace.
  if (event.traceId !== undefined) parts.push(`trace_id=${event.traceId}`)
  if (event.spanId !== undefined) parts.push(`span_id=${event.spanId}`)
  return parts.join(' ')
}

/** The second of the last line's time and its ISO text up to the milliseconds (`…T06:20:41.`). */
let lastSecond = Number.NaN
let lastSecondText = ''

/**
 * `new Date(ms).toISOString()`, with the text of the second kept: lines come many per second, and
 * `toISOString` formats through the C library's `snprintf` every time.
 */
export function isoTime(ms: number): string {
  const whole = Math.floor(ms)
  const second = Math.floor(whole / 1000)
  if (second !== lastSecond) {
    const text = new Date(second * 1000).toISOString()
    // Years past 9999 (or before 0) print as ±YYYYYY: not kept, formatted whole each time.
    if (text.length !== 24) return new Date(whole).toISOString()
    lastSecond = second
    lastSecondText = text.slice(0, 20)
  }
  const milli = whole - second * 1000
  return `${lastSecondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`
}

/**
 * `group/upstream:status:verdict`, with the masked pooled key when there is one and `:resting`
 * for an attempt sent while its upstream rested, then its tier and strategy when not the defaults.
 */
function formatAttempt(attempt: UpstreamAttempt): string {
  const key = attempt.credential === undefined ? '' : `[${attempt.credential}]`
  const resting = attempt.resting === true ? ':resting' : ''
  // Its tier and strategy when they are not the defaults (the `route=` field gives the last's).
  const tier = (attempt.tier ?? 0) === 0 ? '' : `:tier${attempt.tier}`
  const strategy =
    attempt.strategy === undefined || attempt.strategy === 'only' || attempt.strategy === 'weighted'
      ? ''
      : `:${attempt.strategy}${attempt.score === undefined ? '' : `=${formatScore(attempt.score)}`}`
  return `${attempt.group}/${attempt.upstream}${key}:${attempt.status ?? attempt.phase}:${attempt.verdict}${resting}${tier}${strategy}`
}

/** The line the CLI logs when a key's spend crosses a budget's alert threshold. */
export function formatBudgetAlert(alert: BudgetAlert): string {
  return [
    new Date().toISOString(),
    logField(alert.requestId),
    'budget-alert',
    `key=${logField(alert.keyId)}`,
    `per=${alert.per}`,
    `spent=${formatUsd(alert.spentNanoUsd)}`,
    `alertAt=${formatUsd(usdToNano(alert.alertAtUsd))}`,
    `limit=${formatUsd(usdToNano(alert.limitUsd))}`,
    `resets=${alert.resetAt ?? 'never'}`,
  ].join(' ')
}

/** A strategy's score, short: three significant digits. */
function formatScore(score: number): string {
  return Number.isFinite(score) ? String(Number(score.toPrecision(3))) : '-'
}
