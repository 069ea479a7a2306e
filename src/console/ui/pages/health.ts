import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import type { PageProps } from '../page-props'
import { Loading } from '../components'
import { when } from '../format'

type Health = {
  checkedAt: number
  /** The Redis the shared stores run on, in words; absent without `state.redis`. */
  redis?: string
  upstreams: Array<{
    group: string
    upstream: string
    state: 'healthy' | 'failing' | 'recovering'
    summary: string
    inFlight: number
    maxConcurrent: number | null
    tier: number
    routing: string
    keys: Array<{ masked: string; status: string }>
  }>
}

/** Each upstream's health, in words. */
export function HealthPage(_props: PageProps) {
  const [health, setHealth] = useState<Health | null>(null)
  const [error, setError] = useState<string | null>(null)
  const load = () =>
    api<Health>('/health').then(setHealth, (failure: Error) => setError(failure.message))
  useEffect(() => {
    void load()
  }, [])
  if (health === null) return html`<${Loading} error=${error} />`
  return html`<p class="section-head">
      <span class="muted">As of ${when(health.checkedAt)}.</span>
      ${
        health.redis === undefined
          ? null
          : html`<span class="redis-topology">Shared state: Redis ${health.redis}.</span>`
      }
      <button type="button" onClick=${load}>Refresh</button>
    </p>
    <ul class="health">
      ${health.upstreams.map(
        (upstream) =>
          html`<li class=${`card ${upstream.state}`}>
            <h2>
              <span class=${`status ${upstream.state}`}>${upstream.state}</span>
              ${upstream.upstream} <small class="muted">group ${upstream.group}</small>
            </h2>
            <p>${upstream.summary}</p>
            <p class="muted">${upstream.routing}</p>
            ${upstream.maxConcurrent === null ? null : html`<p class="muted">At most ${upstream.maxConcurrent} at once.</p>`}
            ${
              upstream.keys.length === 0
                ? null
                : html`<ul class="pool">
                    ${upstream.keys.map((key) => html`<li><code>${key.masked}</code>: ${key.status}</li>`)}
                  </ul>`
            }
          </li>`,
      )}
    </ul>`
}
