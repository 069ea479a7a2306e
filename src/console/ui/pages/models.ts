import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import type { PageProps } from '../app'
import { Loading } from '../components'
import { count } from '../format'
import type { Catalogue, CatalogueModel } from './models-types'

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
        <table class="models">
          <thead>
            <tr>
              <th scope="col">Call name</th>
              <th scope="col">Upstream model</th>
              <th scope="col">Context</th>
              <th scope="col">Max output</th>
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
