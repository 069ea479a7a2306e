import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { CopyButton, Notice } from '../components'
import { count, day, dollars, isMoneyLimit, limitWords, short, usd, when } from '../format'
import type { KeyRow, KeysPageData, Totals } from './keys-types'

/** The base address, copyable: what every client is configured with. */
export function BaseAddress(props: { baseUrl: string }) {
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

/**
 * A key's usage over a period: requests and tokens on one line, spend on the next, and requests
 * without a price after it (or below it, where the column is narrow). Each run is kept whole: a
 * cell that broke anywhere read as four ragged lines on a desktop, with a number cut from its
 * unit.
 */
function UsageCell(props: { totals: Totals | null }) {
  const { totals } = props
  if (totals === null) return '—'
  const counts = html`<span class="nowrap"
    >${`${count(totals.requests)} req · ${short(totals.totalTokens)} tok`}</span
  >`
  if (totals.costNanoUsd === null || totals.costNanoUsd === undefined) return counts
  const unpriced = totals.unpricedRequests
    ? html`${' '}<small class="nowrap">${`+ ${count(totals.unpricedRequests)} unpriced`}</small>`
    : null
  return html`${counts}<br /><span class="nowrap">${usd(totals.costNanoUsd)}</span>${unpriced}`
}

/** A UTC day, kept on one line. */
function Day(props: { value: string }) {
  return html`<time datetime=${day(props.value)}>${day(props.value)}</time>`
}

/** An instant: its UTC day, then its time, each kept on one line. */
function When(props: { value: number }) {
  const text = when(props.value)
  return html`<time class="when" datetime=${new Date(props.value).toISOString()}
    ><span class="nowrap">${text.slice(0, 10)}</span>${' '}<span class="nowrap"
      >${text.slice(11)}</span
    ></time
  >`
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
export function KeyRowView(props: {
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
      ${
        row.expiresAt === null
          ? null
          : html`<br /><small class="muted"
                >${row.status === 'expired' ? 'expired ' : 'expires '}<${Day}
                  value=${row.expiresAt}
              /></small>`
      }
      ${row.source === 'config' ? html`<br /><small class="muted">config file</small>` : null}
    </td>
    <td data-label="Groups">${row.groups === null ? 'all' : row.groups.join(', ') || 'none'}</td>
    <td data-label="Limits and budget">
      ${limitsText(row).map((part) => html`<span class="chip">${part}</span>`)}
    </td>
    <td data-label="Today"><${UsageCell} totals=${row.usage.today} /></td>
    <td data-label="This month">
      <${UsageCell} totals=${row.usage.month ?? row.usage.lifetime} />
    </td>
    <td data-label="Last used">
      ${row.lastUsedAt === null ? '—' : html`<${When} value=${row.lastUsedAt} />`}
    </td>
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
export function Organisation(props: { data: NonNullable<KeysPageData['organisation']> }) {
  const { today, month, budget, balance } = props.data
  const unpriced = month?.unpricedRequests ?? 0
  // Days sit in their own <time> (kept on one line); the spaces around them are explicit, since
  // htm drops whitespace that holds a line break and the formatter adds line breaks.
  const balanceNote =
    balance === null
      ? ''
      : 'since' in balance
        ? html`${`${dollars(balance.usd)} on `}<${Day}
              value=${balance.since}
            />${`, ${dollars(balance.spentUsd)} spent since`}`
        : balance.asOf === null
          ? 'as the operator reports it'
          : html`${'as the operator reports it, '}<time>${balance.asOf}</time>`
  const unpricedNote = `${count(unpriced)} ${unpriced === 1 ? 'request this month was' : 'requests this month were'} on models without a price: their spend is not counted.`
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
    ${unpriced > 0 ? html`<p class="muted">${unpricedNote}</p>` : null}
  </section>`
}
