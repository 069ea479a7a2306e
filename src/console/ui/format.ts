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
  return nano === null || nano === undefined ? '—' : dollars(nano / 1e9)
}

/** An amount in USD: `$12.50`; amounts under a cent keep their significant digits (`$0.000123`). */
export function dollars(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—'
  if (value === 0 || Math.abs(value) >= 0.01) return `$${value.toFixed(2)}`
  return `$${Number(value.toPrecision(3)).toFixed(9).replace(/0+$/, '')}`
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
    usdPerDay: 'per day',
    usdPerMonth: 'per month',
    usdLifetime: 'in all',
  }),
)

/** Whether a limit counts money (its numbers are nano-USD). */
export function isMoneyLimit(name: string): boolean {
  return name.startsWith('usd')
}
