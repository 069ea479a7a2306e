/**
 * The price of a model, as vendors list it: USD per 1 million tokens for each token category,
 * USD per request where a vendor charges one, and long-context tiers. The names are the config's
 * (`prices`, `models[].price`).
 *
 * @module
 */

/**
 * A long-context tier: once a request's input (uncached, cached and written together) is above
 * `aboveInputTokens`, every token of that request is priced at the tier, output included — as
 * Anthropic, OpenAI and Google bill it. A category the tier leaves out is the base price scaled by
 * the tier's input over the base input (the vendors' tiers keep the categories' ratios).
 */
export type PriceTier = {
  aboveInputTokens: number
  input: number
  output: number
  cachedInput?: number | undefined
  cacheWrite?: number | undefined
  cacheWrite1h?: number | undefined
}

/**
 * USD per 1M tokens. Only `input` and `output` are required: cache reads and writes a price leaves
 * out cost what input costs (OpenAI bills no cache write apart), and an hour's cache write
 * without its own price costs what a 5-minute one does. Reasoning tokens are output.
 */
export type ModelPrice = {
  input: number
  output: number
  /** Input read from the prompt cache. */
  cachedInput?: number | undefined
  /** Input written to the prompt cache for 5 minutes (Anthropic's default; OpenAI's writes). */
  cacheWrite?: number | undefined
  /** Input written to the prompt cache for an hour (Anthropic). */
  cacheWrite1h?: number | undefined
  /** USD per request, on top of the tokens. */
  perRequest?: number | undefined
  /** Long-context tiers, by ascending threshold. */
  tiers?: readonly PriceTier[] | undefined
}

/** Where a price comes from: a vendor's page (or the operator's config), and the day it was read. */
export type PriceSource = {
  source: string
  /** `YYYY-MM-DD`. */
  asOf: string
}

/**
 * One row of the built-in catalogue: the upstream model names it prices (glob patterns over
 * normalised names, matched as model profiles are: `normalizeModelName`, the most literal
 * characters win), its price, and where the price was read.
 */
export type CatalogueRow = PriceSource & {
  /** The model the row names, as the vendor writes it (`claude-sonnet-4-5`). */
  model: string
  match: readonly string[]
  price: ModelPrice
}

/**
 * An operator's price (`prices['pattern']`, `models[].price`): merged field by field over the
 * catalogue's price of the same model; `source` and `asOf` say where it comes from.
 */
export type PriceOverride = Partial<ModelPrice> & Partial<PriceSource>
