/**
 * Money in integers. Prices are USD per 1M tokens with at most six decimals, so a price per token
 * is a whole number of pico-USD (10⁻¹² USD): $3 per 1M tokens is 3,000,000 pico-USD a token. A
 * request's cost is summed in pico-USD, exactly, then rounded once (half up) to the nano-USD
 * (10⁻⁹ USD) that records, budgets, Redis (`INCRBY`-style integers) and Postgres (`bigint`) keep,
 * so totals never drift as float sums do.
 *
 * @module
 */

/** Pico-USD in one USD per 1M tokens, per token. */
export const picoPerUsdPerMillion = 1_000_000

/** Nano-USD in one USD. */
export const nanoPerUsd = 1_000_000_000

/**
 * A price in USD per 1M tokens as pico-USD per token; `undefined` when it is not a non-negative
 * number with at most six decimals (what `isExactPrice` checks in the config).
 */
export function picoPerToken(usdPerMillion: number): number | undefined {
  if (!Number.isFinite(usdPerMillion) || usdPerMillion < 0) return undefined
  const pico = Math.round(usdPerMillion * picoPerUsdPerMillion)
  // Six decimals at most: anything finer would not be a whole pico-USD a token.
  if (Math.abs(pico - usdPerMillion * picoPerUsdPerMillion) > 1e-6 * Math.max(1, pico)) {
    return undefined
  }
  return Number.isSafeInteger(pico) ? pico : undefined
}

/** True for a price the catalogue can hold exactly: non-negative, at most six decimals. */
export function isExactPrice(usd: number): boolean {
  return picoPerToken(usd) !== undefined
}

/** Pico-USD per token back to USD per 1M tokens, for display and for the records. */
export function usdPerMillion(pico: number): number {
  return pico / picoPerUsdPerMillion
}

/** A multiplier (priceMultiplier) as millionths, so that applying it stays in integers. */
export function multiplierMicros(multiplier: number): number {
  return Math.round(multiplier * 1_000_000)
}

/**
 * Pico-USD to nano-USD after a multiplier in millionths (1,000,000 = ×1): rounded half up, or up
 * (`'up'`, for a reservation's hold, which must not fall short). Exact for any amount: past 2⁵³ the
 * product is taken in `BigInt`.
 */
export function picoToNano(
  pico: number,
  micros = 1_000_000,
  rounding: 'half-up' | 'up' = 'half-up',
): number {
  if (micros === 1_000_000) {
    // No multiplier: pico-USD to nano-USD is a division by 1,000, exact in doubles.
    return Math.floor((pico + (rounding === 'up' ? 999 : 500)) / 1000)
  }
  const divisor = 1_000_000_000
  const add = rounding === 'up' ? divisor - 1 : divisor / 2
  const product = pico * micros
  if (Number.isSafeInteger(product + add)) return Math.floor((product + add) / divisor)
  return Number((BigInt(pico) * BigInt(micros) + BigInt(add)) / BigInt(divisor))
}

/** Nano-USD as USD, for answers and logs (a float: display only, never summed). */
export function nanoToUsd(nano: number): number {
  return nano / nanoPerUsd
}

/** USD as whole nano-USD (a budget's limit), rounded to the nearest. */
export function usdToNano(usd: number): number {
  return Math.round(usd * nanoPerUsd)
}

/** `$0.054399`: nano-USD as dollars with up to nine decimals, trailing zeros dropped. */
export function formatUsd(nano: number): string {
  const sign = nano < 0 ? '-' : ''
  const whole = Math.abs(Math.trunc(nano))
  const dollars = Math.floor(whole / nanoPerUsd)
  const fraction = String(whole % nanoPerUsd)
    .padStart(9, '0')
    .replace(/0+$/, '')
  return `${sign}$${dollars}${fraction === '' ? '' : `.${fraction}`}`
}
