import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { guideSnippets, placeholderKey } from '../../guide/snippets'
import { api } from '../api'
import type { PageProps } from '../page-props'
import { CodeBlock, Loading } from '../components'
import type { Catalogue } from './models-types'

/**
 * The call guide: pick a model and a key (one whose secret this page saw, else a placeholder)
 * and get ready-to-paste settings for every client, the base address filled in.
 */
export function GuidePage(props: PageProps) {
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [model, setModel] = useState('')
  const [keyId, setKeyId] = useState(props.knownKeys[0]?.id ?? '')
  useEffect(() => {
    api<Catalogue>('/models').then(
      (data) => {
        setCatalogue(data)
        setModel((current) => current || (data.groups[0]?.models[0]?.name ?? ''))
      },
      (failure: Error) => setError(failure.message),
    )
  }, [])
  if (catalogue === null) return html`<${Loading} error=${error} />`
  const names = [
    ...new Set(catalogue.groups.flatMap((group) => group.models.map((item) => item.name))),
  ]
  const pinned = catalogue.groups.flatMap((group) =>
    group.models.flatMap((item) => (item.pinnedName === null ? [] : [item.pinnedName])),
  )
  const key = props.knownKeys.find((item) => item.id === keyId)
  const snippets = guideSnippets({
    baseUrl: props.session.baseUrl,
    apiKey: key?.secret ?? placeholderKey,
    model: model || 'your-model',
    mcpUrl: props.session.mcpUrl ?? undefined,
  })
  const sections = [...new Set(snippets.map((snippet) => snippet.section))]
  return html`<form class="card guide-picks" onSubmit=${(event: Event) => event.preventDefault()}>
      <div class="field">
        <label for="guide-model">Model</label>
        <select
          id="guide-model"
          value=${model}
          onChange=${(event: Event) => setModel((event.target as HTMLSelectElement).value)}
        >
          ${names.map((name) => html`<option value=${name}>${name}</option>`)}
          ${
            pinned.length > 0
              ? html`<optgroup label="Pinned to a group">
                  ${pinned.map((name) => html`<option value=${name}>${name}</option>`)}
                </optgroup>`
              : null
          }
        </select>
      </div>
      <div class="field">
        <label for="guide-key">Key</label>
        <select
          id="guide-key"
          value=${keyId}
          onChange=${(event: Event) => setKeyId((event.target as HTMLSelectElement).value)}
        >
          <option value="">A placeholder (${placeholderKey})</option>
          ${props.knownKeys.map((item) => html`<option value=${item.id}>${item.name} (${item.id})</option>`)}
        </select>
        <small
          >Only a key whose secret this page saw (one you just created) can be filled in: the
          gateway keeps no secrets.</small
        >
      </div>
    </form>
    <nav class="toc" aria-label="Guide sections">
      ${sections.map(
        (section) =>
          html`<a
            href=${`#/guide`}
            onClick=${(event: Event) => {
              event.preventDefault()
              document.getElementById(`guide-${section}`)?.scrollIntoView()
            }}
            >${section}</a
          >`,
      )}
    </nav>
    ${sections.map(
      (section) =>
        html`<section
          class="guide-section"
          id=${`guide-${section}`}
          aria-labelledby=${`guide-h-${section}`}
        >
          <h2 id=${`guide-h-${section}`}>${section}</h2>
          ${snippets
            .filter((snippet) => snippet.section === section)
            .map(
              (snippet) =>
                html`<article class="snippet" data-snippet=${snippet.id}>
                  <h3>${snippet.title}</h3>
                  ${snippet.note === undefined ? null : html`<p class="muted">${snippet.note}</p>`}
                  <${CodeBlock}
                    code=${snippet.code}
                    label=${snippet.title}
                    language=${snippet.language}
                  />
                </article>`,
            )}
        </section>`,
    )}`
}
