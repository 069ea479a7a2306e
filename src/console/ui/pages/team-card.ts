import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { BarChart } from '../chart'
import { Field, Notice } from '../components'
import { count, dollars, limitWords, short, usd } from '../format'
import type { TeamRow } from './teams-types'

/** One team: its limits, budgets with what is spent, its keys, its spend per day. */
export function TeamCard(props: {
  team: TeamRow
  canCreateKeys: boolean
  onCreateKey: (name: string) => Promise<void>
}) {
  const { team } = props
  const [name, setName] = useState('')
  const [adding, setAdding] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const limits = [
    ...Object.entries(team.limits).map(([limit, value]) => `${count(value)} ${limitWords(limit)}`),
    ...(team.quotaTokens === null ? [] : [`${count(team.quotaTokens)} ${limitWords('quota')}`]),
  ]
  const submit = (event: Event) => {
    event.preventDefault()
    props.onCreateKey(name).then(
      () => {
        setName('')
        setAdding(false)
        setError(null)
      },
      (failure: Error) => setError(failure.message),
    )
  }
  return html`<section
    class="card team"
    aria-labelledby=${`team-${team.id}`}
    data-team-id=${team.id}
  >
    <h3 id=${`team-${team.id}`}>
      ${team.name}${' '}<small class="muted"
        >${team.id}${team.source === 'config' ? ' · config file' : ''}</small
      >
    </h3>
    <dl class="figures">
      <div>
        <dt>Spend today</dt>
        <dd>${usd(team.today?.costNanoUsd)}</dd>
      </div>
      <div>
        <dt>Spend this month</dt>
        <dd>${usd(team.month?.costNanoUsd)}</dd>
      </div>
      ${team.budgets.map(
        (budget) =>
          html`<div data-testid="team-budget">
            <dt>Budget per ${budget.per}</dt>
            <dd>
              ${
                budget.spentNanoUsd === null
                  ? dollars(budget.usd)
                  : `${usd(budget.spentNanoUsd)} of ${dollars(budget.usd)}`
              }
            </dd>
            ${
              budget.spentNanoUsd === null
                ? null
                : html`<dd>
                    <meter
                      min="0"
                      max=${budget.usd}
                      value=${Math.min(budget.usd, budget.spentNanoUsd / 1e9)}
                      aria-label=${`Spent of the ${budget.per} budget`}
                    ></meter>
                  </dd>`
            }
          </div>`,
      )}
    </dl>
    <p class="chips">
      <span class="chip"
        >groups: ${team.groups === null ? 'all' : team.groups.join(', ') || 'none'}</span
      >
      ${limits.map((text) => html`<span class="chip">${text}</span>`)}
    </p>
    <h4>Keys</h4>
    ${
      team.keys.length === 0
        ? html`<p class="muted">No keys in this team.</p>`
        : html`<ul class="team-keys">
            ${team.keys.map(
              (key) =>
                html`<li data-key-id=${key.id}>
                  <strong>${key.name}</strong>${' '}<code>${key.masked}</code>${' '}<span
                    class=${`status ${key.status}`}
                    >${key.status}</span
                  >
                </li>`,
            )}
          </ul>`
    }
    ${
      props.canCreateKeys
        ? adding
          ? html`<form class="inline-form" onSubmit=${submit}>
              <${Field}
                id=${`new-key-${team.id}`}
                label="Key name"
                value=${name}
                required=${true}
                onInput=${setName}
              />
              <button type="submit" class="primary">Create key in ${team.name}</button>
              <button type="button" onClick=${() => setAdding(false)}>Cancel</button>
            </form>`
          : html`<button type="button" onClick=${() => setAdding(true)}>
              Add a key to ${team.name}
            </button>`
        : null
    }
    <${Notice} kind="error" text=${error} />
    <${BarChart}
      title=${`${team.name}: spend per day (USD), last 30 days`}
      legend=${['spend']}
      format=${usd}
      empty="No priced requests in the last 30 days: nothing to chart."
      bars=${team.days.map((row) => ({ label: row.day, parts: [row.costNanoUsd] }))}
    />
    <p class="muted">
      ${short(team.days.reduce((sum, row) => sum + row.totalTokens, 0))} tokens in 30 days.
    </p>
  </section>`
}
