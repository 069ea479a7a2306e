const whole = new Intl.NumberFormat('en-US')
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })

/** A count as people read it: `12,345`. */
export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : whole.format(value)
}

/** A large count, short: `1.2M`. */
export function short(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : compact.format(value)
}

/** USD from nano-USD: `$0.0123`, more digits for small amounts. */
export function usd(nano: number | null | undefined): string {
  if (nano === null || nano === undefined) return '—'
  const dollars = nano / 1e9
  const digits = dollars !== 0 && Math.abs(dollars) < 0.01 ? 6 : 2
  return `$${dollars.toFixed(digits)}`
}

/** An instant as a UTC date and time: `2026-11-26 14:03 UTC`. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—'
  const iso = new Date(value).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

/** A UTC day: `2026-11-26`. */
export function day(value: string | null | undefined): string {
  return value === null || value === undefined ? 'never' : value.slice(0, 10)
}

/** Words for a limit's name (the name itself for one this page does not know). */
export function limitWords(name: string): string {
  return limitNames.get(name) ?? name
}

const limitNames = new Map(
  Object.entries({
    requestsPerMinute: 'requests/min',
    inputTokensPerMinute: 'input tokens/min',
    outputTokensPerMinute: 'output tokens/min',
    concurrency: 'at once',
    tokensPerDay: 'tokens/day',
    tokensPerMonth: 'tokens/month',
    quota: 'tokens in all',
  }),
)
