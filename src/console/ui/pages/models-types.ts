/** A model of the catalogue, as `GET <mount>/api/models` gives it. */
export type CatalogueModel = {
  name: string
  pinnedName: string | null
  upstreamModel: string
  family: string
  contextWindow: number | null
  maxOutputTokens: number | null
  capabilities: {
    tools: boolean
    forcedToolChoice: boolean
    vision: boolean
    documents: boolean
    reasoning: string
    structuredOutput: string
  }
  price: CataloguePrice | null
  fallbacks: string[]
}

/** USD per 1M tokens of each category, as `GET /v1/models` lists it, and where it comes from. */
export type CatalogueRates = {
  input: number
  output: number
  cachedInput: number
  cacheWrite: number
  cacheWrite1h: number
}

export type CataloguePrice = CatalogueRates & {
  currency: string
  unit: string
  perRequest?: number
  tiers?: Array<CatalogueRates & { aboveInputTokens: number }>
  multiplier: number
  row: string
  source: string
  asOf: string | null
  /** The group's upstreams that charge more for the model where they run it (a regional endpoint). */
  surcharges: Array<{ upstream: string; multiplier: number; source: string }>
}

export type Catalogue = {
  groupIdRouting: boolean
  groups: Array<{
    id: string
    protocol: string
    cache: CatalogueCache | null
    models: CatalogueModel[]
  }>
}

/** A group's response cache: its settings, and this instance's counts since it started. */
export type CatalogueCache = {
  ttlSeconds: number
  scope: string
  toolCalls: boolean
  hits: number
  misses: number
  bypasses: number
  /** hits / (hits + misses); `null` before the first lookup. */
  hitRate: number | null
  savedUsd: number
}
