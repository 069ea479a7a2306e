import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import type { PageProps } from '../app'
import { CodeBlock, CopyButton, Loading, Notice } from '../components'
import { count, day, dollars, isMoneyLimit, limitWords, short, usd, when } from '../format'
import { KeyForm } from './key-form'
import type { KeyRow, KeysPageData, Totals } from './keys-types'

/** The base address, copyable: what every client is configured with. */
function BaseAddress(props: { baseUrl: string }) {
  const v1 = `${props.baseUrl}/v1`
  return html`<section class="banner" aria-labelledby="base-title">
    <h2 id="base-title">Base address</h2>
    <p class="address">
      <code data-testid="base-url">${v1}</code>
      <${CopyButton} text=${v1} label="Copy the base address" />
    </p>
    <p class="muted">
      OpenAI-style SDKs and tools take it as it is. Anthropic and Gemini SDKs take
      <code data-testid="host-url">${props.baseUrl}</code> (they add their own path).
    </p>
  </section>`
}

function usageText(totals: Totals | null): string {
  if (totals === null) return '—'
  const spend =
    totals.costNanoUsd === null || totals.costNanoUsd === undefined
      ? ''
      : ` · ${usd(totals.costNanoUsd)}${totals.unpricedRequests ? ` + ${totals.unpricedRequests} unpriced` : ''}`
  return `${count(totals.requests)} req · ${short(totals.totalTokens)} tok${spend}`
}

/** A key's limits and budgets, with what is used of each where the meter says. */
function limitsText(key: KeyRow): string[] {
  const parts: string[] = []
  for (const state of key.limitStates) {
    const words = limitWords(state.name)
    const money = isMoneyLimit(state.name)
    const amount = (value: number) => (money ? usd(value) : short(value))
    parts.push(
      state.used === undefined
        ? `${money ? usd(state.limit) : count(state.limit)} ${words}`
        : `${amount(state.used)} of ${amount(state.limit)} ${words}`,
    )
  }
  if (parts.length === 0) {
    for (const [name, value] of Object.entries(key.limits)) {
      parts.push(`${count(value)} ${limitWords(name)}`)
    }
    if (key.quotaTokens !== null) parts.push(`${count(key.quotaTokens)} ${limitWords('quota')}`)
    for (const budget of key.budget) parts.push(`${dollars(budget.usd)} per ${budget.per}`)
  }
  if (key.priceMultiplier !== null) parts.push(`price × ${key.priceMultiplier}`)
  return parts.length === 0 ? ['none'] : parts
}

/** A key's row: a table row on wide screens, a card on a phone (by CSS). */
function KeyRowView(props: {
  row: KeyRow
  canEdit: boolean
  onEdit: () => void
  onRevoke: () => Promise<void>
}) {
  const { row } = props
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const editable = props.canEdit && row.source !== 'config' && row.status === 'active'
  return html`<tr data-key-id=${row.id} class=${row.status === 'active' ? '' : 'inactive'}>
    <td data-label="Name">
      <strong>${row.name}</strong><br /><small class="muted">${row.id}</small>
    </td>
    <td data-label="Key"><code>${row.masked}</code></td>
    <td data-label="Status">
      <span class=${`status ${row.status}`}>${row.status}</span>
      ${row.source === 'config' ? html`<br /><small class="muted">config file</small>` : null}
    </td>
    <td data-label="Groups">${row.groups === null ? 'all' : row.groups.join(', ') || 'none'}</td>
    <td data-label="Expires">${row.expiresAt === null ? 'never' : day(row.expiresAt)}</td>
    <td data-label="Limits and budget">
      ${limitsText(row).map((part) => html`<span class="chip">${part}</span>`)}
    </td>
    <td data-label="Today">${usageText(row.usage.today)}</td>
    <td data-label="This month">${usageText(row.usage.month ?? row.usage.lifetime)}</td>
    <td data-label="Last used">${row.lastUsedAt === null ? '—' : when(row.lastUsedAt)}</td>
    <td data-label="Actions" class="row-actions">
      ${
        editable
          ? confirming
            ? html`<button
                  type="button"
                  class="danger"
                  onClick=${() => props.onRevoke().catch((failure: Error) => setError(failure.message))}
                >
                  Confirm revoke
                </button>
                <button type="button" onClick=${() => setConfirming(false)}>Cancel</button>`
            : html`<button type="button" onClick=${props.onEdit} aria-label=${`Edit ${row.name}`}>
                  Edit
                </button>
                <button
                  type="button"
                  onClick=${() => setConfirming(true)}
                  aria-label=${`Revoke ${row.name}`}
                >
                  Revoke
                </button>`
          : null
      }
      <${Notice} kind="error" text=${error} />
    </td>
  </tr>`
}

/** The organisation's panel: its spend today and this month, against its budget or balance. */
function Organisation(props: { data: NonNullable<KeysPageData['organisation']> }) {
  const { today, month, budget, balance } = props.data
  const unpriced = month?.unpricedRequests ?? 0
  const balanceNote =
    balance === null
      ? ''
      : 'since' in balance
        ? `${dollars(balance.usd)} on ${balance.since}, ${dollars(balance.spentUsd)} spent since`
        : `as the operator reports it${balance.asOf === null ? '' : `, ${balance.asOf}`}`
  return html`<section class="card org" aria-labelledby="org-title" data-testid="organisation">
    <h2 id="org-title">Organisation</h2>
    <dl class="figures">
      <div>
        <dt>Spend today</dt>
        <dd data-testid="org-today">${usd(today?.costNanoUsd)}</dd>
      </div>
      <div>
        <dt>Spend this month</dt>
        <dd data-testid="org-month">${usd(month?.costNanoUsd)}</dd>
      </div>
      <div>
        <dt>Requests this month</dt>
        <dd>${count(month?.requests)}</dd>
      </div>
      <div>
        <dt>Tokens this month</dt>
        <dd>${short(month?.totalTokens)}</dd>
      </div>
      ${
        budget === null
          ? null
          : html`<div>
              <dt>Budget per ${budget.per}</dt>
              <dd data-testid="org-budget">
                ${dollars(budget.spentUsd)} of ${dollars(budget.usd)}
              </dd>
              <dd class="muted">
                ${budget.leftUsd === null ? '' : `${dollars(budget.leftUsd)} left`}
              </dd>
            </div>`
      }
      ${
        balance === null
          ? null
          : html`<div>
              <dt>Balance</dt>
              <dd data-testid="org-balance">${dollars(balance.leftUsd)}</dd>
              <dd class="muted">${balanceNote}</dd>
            </div>`
      }
    </dl>
    ${
      unpriced > 0
        ? html`<p class="muted">
            ${count(unpriced)} requests this month were on models without a price: their spend is
            not counted.
          </p>`
        : null
    }
  </section>`
}

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
            <th scope="col">Expires</th>
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
