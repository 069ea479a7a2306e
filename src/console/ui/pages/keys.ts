import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import type { PageProps } from '../page-props'
import { CodeBlock, Loading, Notice } from '../components'
import { KeyForm } from './key-form'
import { BaseAddress, KeyRowView, Organisation } from './keys-parts'
import type { KeyRow, KeysPageData } from './keys-types'

/** The "API keys" page: the base address, the organisation, every key, and (admins) changes. */
export function KeysPage(props: PageProps) {
  const [data, setData] = useState<KeysPageData | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [mode, setMode] = useState<
    { kind: 'list' } | { kind: 'create' } | { kind: 'edit'; row: KeyRow }
  >({
    kind: 'list',
  })
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const [showInactive, setShowInactive] = useState(false)

  const load = () =>
    api<KeysPageData>('/keys').then(
      (page) => {
        setData(page)
        setError(null)
      },
      (failure: Error) => setError(failure.message),
    )
  useEffect(() => {
    void load()
  }, [])

  if (data === null) return html`<${Loading} error=${error} />`
  const rows = data.keys.filter((row) => showInactive || row.status === 'active')
  const hidden = data.keys.length - rows.length
  const create = async (body: Record<string, unknown>) => {
    const answer = await api<{ key: string; row: KeyRow }>('/keys', { method: 'POST', body })
    props.rememberKey({ id: answer.row.id, name: answer.row.name, secret: answer.key })
    setCreated({ key: answer.key, name: answer.row.name })
    setMode({ kind: 'list' })
    await load()
  }
  const edit = (row: KeyRow) => async (body: Record<string, unknown>) => {
    await api(`/keys/${encodeURIComponent(row.id)}`, { method: 'PATCH', body })
    setMode({ kind: 'list' })
    setMessage(`Saved ${row.name}.`)
    await load()
  }
  const revoke = (row: KeyRow) => async () => {
    await api(`/keys/${encodeURIComponent(row.id)}/revoke`, { method: 'POST', body: {} })
    setMessage(`Revoked ${row.name}: it is refused from now on.`)
    await load()
  }

  return html`<${BaseAddress} baseUrl=${data.baseUrl} />
    ${data.organisation === null ? null : html`<${Organisation} data=${data.organisation} />`}
    <${Notice} kind="error" text=${error} />
    <${Notice} kind="ok" text=${message} />
    ${
      created === null
        ? null
        : html`<section
            class="card created"
            aria-labelledby="created-title"
            data-testid="created-key"
          >
            <h2 id="created-title">Key ${created.name} created</h2>
            <p>
              <strong>Copy it now: it is not shown again.</strong> The gateway keeps only its
              SHA-256.
            </p>
            <${CodeBlock} code=${created.key} label="the new key" />
            <p class="actions">
              <a class="button" href="#/guide">Use it in the call guide</a>
              <button type="button" onClick=${() => setCreated(null)}>Done</button>
            </p>
          </section>`
    }
    ${
      mode.kind === 'create'
        ? html`<${KeyForm}
            groups=${data.groups}
            onSubmit=${create}
            onCancel=${() => setMode({ kind: 'list' })}
          />`
        : null
    }
    ${
      mode.kind === 'edit'
        ? html`<${KeyForm}
            key=${mode.row.id}
            groups=${data.groups}
            editing=${mode.row}
            onSubmit=${edit(mode.row)}
            onCancel=${() => setMode({ kind: 'list' })}
          />`
        : null
    }
    <section aria-labelledby="keys-title">
      <div class="section-head">
        <h2 id="keys-title">Keys</h2>
        ${
          data.canEdit && mode.kind === 'list'
            ? html`<button
                type="button"
                class="primary"
                onClick=${() => setMode({ kind: 'create' })}
              >
                Create key
              </button>`
            : null
        }
      </div>
      ${
        data.store === 'memory' && data.canEdit
          ? html`<p class="muted">
              Keys created here live in this process until it stops: configure
              <code>state.postgres</code> to keep them.
            </p>`
          : null
      }
      ${
        data.store === null && props.session.user.role === 'admin'
          ? html`<p class="muted">
              Keys are read-only: this console has no key store to write to (configure
              <code>state.postgres</code>).
            </p>`
          : null
      }
      <table class="keys">
        <caption class="offscreen">
          API keys, with their usage today and this month
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Status</th>
            <th scope="col">Groups</th>
            <th scope="col">Limits and budget</th>
            <th scope="col">Today</th>
            <th scope="col">${data.usageSource === 'ledger' ? 'This month' : 'In all'}</th>
            <th scope="col">Last used</th>
            <th scope="col"><span class="offscreen">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) =>
              html`<${KeyRowView}
                key=${row.id}
                row=${row}
                canEdit=${data.canEdit}
                onEdit=${() => setMode({ kind: 'edit', row })}
                onRevoke=${revoke(row)}
              />`,
          )}
        </tbody>
      </table>
      ${rows.length === 0 ? html`<p>No keys yet.</p>` : null}
      ${
        hidden > 0 || showInactive
          ? html`<label class="check"
              ><input
                type="checkbox"
                checked=${showInactive}
                onChange=${() => setShowInactive(!showInactive)}
              />
              Show revoked and expired keys
              (${data.keys.filter((row) => row.status !== 'active').length})</label
            >`
          : null
      }
    </section>`
}
