import { anthropicPriceRows } from '../models/prices/anthropic'
import { bedrockPriceRows } from '../models/prices/bedrock'
import { geminiPriceRows } from '../models/prices/gemini'
import { openaiPriceRows } from '../models/prices/openai'
import { normalizeModelName } from '../models/match-profile'
import { compileNamePattern, type NamePattern } from '../models/name-pattern'
import type { ModelEntry } from '../models/model-entry'
import type { CatalogueRow, ModelPrice, PriceOverride } from './model-price'
import { resolvePrice, type ResolvedPrice } from './resolved-price'

let rows: readonly CatalogueRow[] | undefined

/**
 * The built-in rows: the list prices of the OpenAI, Anthropic and Google models profiles know,
 * and of the models AWS Bedrock serves over the Converse API.
 * Built on first use, not at import (importing the core stays cheap).
 */
export function builtInPriceRows(): readonly CatalogueRow[] {
  return (rows ??= [
    ...openaiPriceRows(),
    ...anthropicPriceRows(),
    ...geminiPriceRows(),
    ...bedrockPriceRows(),
  ])
}

/** How a gateway's catalogue is made (`prices`, `builtInPrices` in the config). */
export type PriceCatalogueOptions = {
  /** Start from the built-in rows (default true). */
  builtIn?: boolean | undefined
  /**
   * Operator prices keyed by upstream-model pattern (globs over normalised names, as profiles
   * match): merged field by field over the catalogue's price, the more literal pattern last;
   * `false` marks the models it matches unpriced.
   */
  overrides?: Readonly<Record<string, PriceOverride | false>> | undefined
}

/**
 * A gateway's prices. `forModel` prices a group's model entry (its upstream model, with the
 * entry's own `price` over the catalogue's), resolved once per entry; `lookup` prices an upstream
 * model name, resolved once per name. `undefined` is an unpriced model.
 */
export type PriceCatalogue = {
  lookup(upstreamModel: string): ResolvedPrice | undefined
  forModel(model: ModelEntry): ResolvedPrice | undefined
}

type Compiled<T> = { value: T; label: string; patterns: NamePattern[] }

const cacheLimit = 1000

/**
 * Builds a catalogue. Matching is the model profiles' (ADR 0008): the upstream name normalised
 * (provider prefixes, Bedrock and Vertex suffixes dropped), each pattern matching the whole name,
 * the most literal pattern winning, so that dated snapshots and aliases land on their row.
 */
export function createPriceCatalogue(options: PriceCatalogueOptions = {}): PriceCatalogue {
  const rows: Compiled<CatalogueRow>[] =
    options.builtIn === false
      ? []
      : builtInPriceRows().map((row) => ({
          value: row,
          label: row.model,
          patterns: row.match.map(compileNamePattern),
        }))
  const overrides: Compiled<PriceOverride | false>[] = Object.entries(options.overrides ?? {}).map(
    ([pattern, value]) => ({
      value,
      label: pattern,
      patterns: [compileNamePattern(normalizePattern(pattern))],
    }),
  )
  const byName = new Map<string, ResolvedPrice | null>()
  const byEntry = new WeakMap<ModelEntry, ResolvedPrice | null>()

  const lookup = (upstreamModel: string): ResolvedPrice | undefined => {
    const cached = byName.get(upstreamModel)
    if (cached !== undefined) return cached ?? undefined
    const normalized = normalizeModelName(upstreamModel)
    const row = bestMatch(rows, normalized)
    let merged: MergedPrice | undefined = row === undefined ? undefined : fromRow(row.value)
    // Every override that matches, the least literal first: the most literal is laid on last.
    for (const override of matching(overrides, normalized)) {
      merged =
        override.value === false
          ? undefined
          : mergePrice(merged, override.value, override.label, `prices["${override.label}"]`)
    }
    const resolved = merged === undefined ? undefined : complete(merged)
    if (byName.size >= cacheLimit) byName.clear()
    byName.set(upstreamModel, resolved ?? null)
    return resolved
  }

  return {
    lookup,
    forModel(model) {
      const cached = byEntry.get(model)
      if (cached !== undefined) return cached ?? undefined
      const own = model.price
      let resolved: ResolvedPrice | undefined
      if (own === false) resolved = undefined
      else if (own === undefined) resolved = lookup(model.upstreamModel)
      else {
        const base = lookup(model.upstreamModel)
        const merged = mergePrice(
          base === undefined ? undefined : fromResolved(base),
          own,
          model.upstreamModel,
          `models["${model.name}"].price`,
        )
        resolved = complete(merged)
      }
      byEntry.set(model, resolved ?? null)
      return resolved
    },
  }
}

/** A price being merged: fields may be missing until an override supplies them. */
type MergedPrice = Partial<ModelPrice> & { model: string; source: string; asOf?: string }

function fromRow(row: CatalogueRow): MergedPrice {
  return { ...row.price, model: row.model, source: row.source, asOf: row.asOf }
}

function fromResolved(price: ResolvedPrice): MergedPrice {
  return {
    ...price.price,
    model: price.model,
    source: price.source,
    ...(price.asOf === undefined ? {} : { asOf: price.asOf }),
  }
}

/**
 * Lays an override over a price. A price the override makes on its own (no base) is named
 * `model`; its source is the override's, else where in the config it was written.
 */
function mergePrice(
  base: MergedPrice | undefined,
  override: PriceOverride,
  model: string,
  where: string,
): MergedPrice {
  const defined = Object.fromEntries(
    Object.entries(override).filter(([, value]) => value !== undefined),
  ) as PriceOverride
  const { source, asOf, ...fields } = defined
  return {
    ...base,
    ...fields,
    model: base?.model ?? model,
    source: source ?? `config: ${where}`,
    ...(asOf === undefined ? {} : { asOf }),
  }
}

/** A merged price with input and output is a price; anything less leaves the model unpriced. */
function complete(merged: MergedPrice): ResolvedPrice | undefined {
  const { model, source, asOf, input, output, ...rest } = merged
  if (input === undefined || output === undefined) return undefined
  return resolvePrice(model, { ...rest, input, output }, source, asOf)
}

function bestMatch<T>(table: readonly Compiled<T>[], name: string): Compiled<T> | undefined {
  let best: Compiled<T> | undefined
  let bestSpecificity = -1
  for (const entry of table) {
    for (const pattern of entry.patterns) {
      if (pattern.specificity > bestSpecificity && pattern.regex.test(name)) {
        best = entry
        bestSpecificity = pattern.specificity
      }
    }
  }
  return best
}

function matching<T>(table: readonly Compiled<T>[], name: string): Compiled<T>[] {
  return table
    .filter((entry) => entry.patterns[0]!.regex.test(name))
    .sort((a, b) => a.patterns[0]!.specificity - b.patterns[0]!.specificity)
}

/** An override's pattern, normalised as names are (case, provider prefix), its `*`s kept. */
function normalizePattern(pattern: string): string {
  return normalizeModelName(pattern.replaceAll('*', '\u0000')).replaceAll('\u0000', '*')
}
