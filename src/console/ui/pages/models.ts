import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import type { PageProps } from '../page-props'
import { Loading } from '../components'
import { count, dollars } from '../format'
import type {
  Catalogue,
  CatalogueCache,
  CatalogueModel,
  CataloguePrice,
  CatalogueRates,
} from './models-types'

const perMillion = (value: number) => `$${Number(value.toFixed(6))}`

function ratesText(rates: CatalogueRates): string {
  const parts = [`in ${perMillion(rates.input)}`, `out ${perMillion(rates.output)}`]
  if (rates.cachedInput !== rates.input) parts.push(`cache read ${perMillion(rates.cachedInput)}`)
  if (rates.cacheWrite !== rates.input) parts.push(`cache write ${perMillion(rates.cacheWrite)}`)
  if (rates.cacheWrite1h !== rates.cacheWrite)
    parts.push(`1 h write ${perMillion(rates.cacheWrite1h)}`)
  return parts.join(' · ')
}

/** Where a price comes from: a link named by its host for a URL, else the text as given. */
function Source(props: { source: string }) {
  let url: URL | undefined
  try {
    url = new URL(props.source)
  } catch {
    url = undefined
  }
  if (url === undefined || !/^https?:$/.test(url.protocol)) return html`${props.source}`
  return html`<a href=${url.href} rel="noreferrer" title=${url.href}>${url.hostname}</a>`
}

/** A model's price per 1M tokens, its long-context tiers, and its source and date. */
function PriceCell(props: { price: CataloguePrice | null }) {
  const { price } = props
  if (price === null) return html`<span class="chip" data-testid="price">unpriced</span>`
  const tiers = (price.tiers ?? []).map(
    (tier) =>
      `above ${tier.aboveInputTokens.toLocaleString('en-US')} input tokens: ${ratesText(tier)}`,
  )
  const perRequest =
    price.perRequest === undefined ? null : `+ ${perMillion(price.perRequest)} per request`
  const multiplier = price.multiplier === 1 ? null : `× ${price.multiplier} multiplier applied`
  return html`<span data-testid="price">${ratesText(price)}</span>
    ${[perRequest, ...tiers, multiplier].map((line) => (line === null ? null : html`<br /><small>${line}</small>`))}
    ${price.surcharges.map(
      (surcharge) =>
        html`<br /><small data-testid="price-surcharge"
            >× ${surcharge.multiplier} on ${surcharge.upstream} (where it runs:
            <${Source} source=${surcharge.source} />)</small
          >`,
    )}
    <br /><small class="muted" data-testid="price-source"
      ><${Source}
        source=${price.source}
      />${price.asOf === null ? '' : `, as of ${price.asOf}`}</small
    >`
}

function capabilities(model: CatalogueModel): string[] {
  const { capabilities: can } = model
  return [
    can.forcedToolChoice ? 'tools' : 'tools (no forced choice)',
    ...(can.vision ? ['vision'] : []),
    ...(can.documents ? ['PDF'] : []),
    `reasoning: ${can.reasoning}`,
    `structured output: ${can.structuredOutput}`,
  ]
}

/** The model catalogue: every model the user may call, by group, with limits and capabilities. */
export function ModelsPage(_props: PageProps) {
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    api<Catalogue>('/models').then(setCatalogue, (failure: Error) => setError(failure.message))
  }, [])
  if (catalogue === null) return html`<${Loading} error=${error} />`
  if (catalogue.groups.length === 0) return html`<p>No model is available to you.</p>`
  return html`${catalogue.groups.map(
    (group) =>
      html`<section class="group" aria-labelledby=${`group-${group.id}`}>
        <h2 id=${`group-${group.id}`}>
          ${group.id} <small class="muted">${group.protocol} protocol</small>
        </h2>
        <${CacheLine} cache=${group.cache} />
        <table class="models">
          <thead>
            <tr>
              <th scope="col">Call name</th>
              <th scope="col">Upstream model</th>
              <th scope="col">Context</th>
              <th scope="col">Max output</th>
              <th scope="col">Price per 1M tokens</th>
              <th scope="col">Capabilities</th>
              <th scope="col">Fallbacks</th>
            </tr>
          </thead>
          <tbody>
            ${group.models.map(
              (model) =>
                html`<tr data-model=${model.name}>
                  <td data-label="Call name">
                    <code>${model.name}</code
                    >${model.pinnedName === null ? null : html`<br /><small><code>${model.pinnedName}</code></small>`}
                  </td>
                  <td data-label="Upstream model">
                    <code>${model.upstreamModel}</code
                    >${model.family === 'unknown' ? null : html`<br /><small class="muted">profile ${model.family}</small>`}
                  </td>
                  <td data-label="Context">
                    ${model.contextWindow === null ? 'unknown' : count(model.contextWindow)}
                  </td>
                  <td data-label="Max output">
                    ${model.maxOutputTokens === null ? 'unknown' : count(model.maxOutputTokens)}
                  </td>
                  <td data-label="Price per 1M tokens"><${PriceCell} price=${model.price} /></td>
                  <td data-label="Capabilities">
                    ${capabilities(model).map((item) => html`<span class="chip">${item}</span>`)}
                  </td>
                  <td data-label="Fallbacks">
                    ${model.fallbacks.length === 0 ? 'none' : model.fallbacks.join(', ')}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>`,
  )}`
}

/** A count and its noun: `1 hit`, `2 misses`. */
function plural(value: number, noun: string): string {
  return `${count(value)} ${noun}${value === 1 ? '' : noun.endsWith('s') ? 'es' : 's'}`
}

/** Whether a group caches, and its hit rate and savings on this instance. */
function CacheLine(props: { cache: CatalogueCache | null }) {
  const cache = props.cache
  if (cache === null) return html`<p class="muted" data-cache="off">Response cache: off</p>`
  const rate =
    cache.hitRate === null ? 'no lookups yet' : `hit rate ${(cache.hitRate * 100).toFixed(0)} %`
  const counts = [
    plural(cache.hits, 'hit'),
    plural(cache.misses, 'miss'),
    `${count(cache.bypasses)} bypassed`,
  ].join(', ')
  const tools = cache.toolCalls ? ', tool calls' : ''
  // One string: htm drops the whitespace of a line break between text and a value.
  const text = `Response cache: ${cache.ttlSeconds} s, ${cache.scope} scope${tools} — ${rate} (${counts}), saved ${dollars(cache.savedUsd)} `
  return html`<p data-cache="on">
    ${text}<small class="muted">(this instance, since it started)</small>
  </p>`
}
