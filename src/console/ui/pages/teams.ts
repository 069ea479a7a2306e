import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import { BarChart } from '../chart'
import { CodeBlock, Field, Loading, Notice } from '../components'
import { count, dollars, limitWords, short, usd } from '../format'
import type { PageProps } from '../page-props'
import type { MoneyBudget, Totals } from './keys-types'

type TeamRow = {
  id: string
  name: string
  source: 'config' | 'postgres' | 'memory'
  groups: string[] | null
  quotaTokens: number | null
  limits: Record<string, number>
  budgets: Array<MoneyBudget & { spentNanoUsd: number | null; leftNanoUsd: number | null }>
  keys: Array<{ id: string; name: string; masked: string; status: string; source: string }>
  today: Totals | null
  month: Totals | null
  days: Array<{ day: string; costNanoUsd: number; totalTokens: number }>
}

type TeamsPageData = {
  canEdit: boolean
  canCreateKeys: boolean
  store: 'postgres' | 'memory' | null
  teams: TeamRow[]
  organisation: {
    month: Totals
    byTeam: Array<{ team: string; name: string; costNanoUsd: number; requests: number }>
    noTeamNanoUsd: number
  } | null
}

/** The "Teams" page: the organisation's month by team, then each team with its keys and spend. */
export function TeamsPage(props: PageProps) {
  const [data, setData] = useState<TeamsPageData | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [created, setCreated] = useState<{ key: string; name: string; team: string } | null>(null)
  const [creatingTeam, setCreatingTeam] = useState(false)
  const load = () =>
    api<TeamsPageData>('/teams').then(
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

  const createKey = (team: TeamRow) => async (name: string) => {
    const answer = await api<{ key: string; row: { id: string; name: string } }>('/keys', {
      method: 'POST',
      body: { name, team: team.id },
    })
    props.rememberKey({ id: answer.row.id, name: answer.row.name, secret: answer.key })
    setCreated({ key: answer.key, name: answer.row.name, team: team.name })
    await load()
  }
  const createTeam = async (body: Record<string, unknown>) => {
    await api('/teams', { method: 'POST', body })
    setCreatingTeam(false)
    await load()
  }

  return html`<${Notice} kind="error" text=${error} />
    ${data.organisation === null ? null : html`<${ByTeam} data=${data.organisation} />`}
    ${
      created === null
        ? null
        : html`<section
            class="card created"
            aria-labelledby="created-title"
            data-testid="created-key"
          >
            <h2 id="created-title">Key ${created.name} created in ${created.team}</h2>
            <p><strong>Copy it now: it is not shown again.</strong></p>
            <${CodeBlock} code=${created.key} label="the new key" />
            <p class="actions">
              <button type="button" onClick=${() => setCreated(null)}>Done</button>
            </p>
          </section>`
    }
    <div class="section-head">
      <h2>Teams</h2>
      ${
        data.canEdit && !creatingTeam
          ? html`<button type="button" class="primary" onClick=${() => setCreatingTeam(true)}>
              Create team
            </button>`
          : null
      }
    </div>
    ${
      creatingTeam
        ? html`<${TeamForm} onSubmit=${createTeam} onCancel=${() => setCreatingTeam(false)} />`
        : null
    }
    ${data.teams.length === 0 ? html`<p>No teams yet.</p>` : null}
    ${data.teams.map(
      (team) =>
        html`<${TeamCard}
          key=${team.id}
          team=${team}
          canCreateKeys=${data.canCreateKeys}
          onCreateKey=${createKey(team)}
        />`,
    )}`
}

/** The organisation's spend this month, team by team (and what keys of no team spent). */
function ByTeam(props: { data: NonNullable<TeamsPageData['organisation']> }) {
  const { month, byTeam, noTeamNanoUsd } = props.data
  const total = month.costNanoUsd ?? 0
  const share = (nano: number) => (total > 0 ? `${Math.round((nano / total) * 100)} %` : '—')
  return html`<section class="card" aria-labelledby="by-team-title" data-testid="spend-by-team">
    <h2 id="by-team-title">Organisation spend this month, by team</h2>
    <table class="compact">
      <thead>
        <tr>
          <th scope="col">Team</th>
          <th scope="col">Spend</th>
          <th scope="col">Share</th>
          <th scope="col">Requests</th>
        </tr>
      </thead>
      <tbody>
        ${byTeam.map(
          (row) =>
            html`<tr data-team=${row.team}>
              <td data-label="Team">${row.name}</td>
              <td data-label="Spend">${usd(row.costNanoUsd)}</td>
              <td data-label="Share">${share(row.costNanoUsd)}</td>
              <td data-label="Requests">${count(row.requests)}</td>
            </tr>`,
        )}
        <tr data-team="">
          <td data-label="Team"><em>No team</em></td>
          <td data-label="Spend">${usd(noTeamNanoUsd)}</td>
          <td data-label="Share">${share(noTeamNanoUsd)}</td>
          <td data-label="Requests">—</td>
        </tr>
      </tbody>
    </table>
    <p class="muted">In all: ${usd(total)} this month.</p>
  </section>`
}

/** One team: its limits, budgets with what is spent, its keys, its spend per day. */
function TeamCard(props: {
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

/** The form that creates a team: its id, a name, and a monthly budget. */
function TeamForm(props: {
  onSubmit: (body: Record<string, unknown>) => Promise<void>
  onCancel: () => void
}) {
  const [id, setId] = useState('')
  const [name, setName] = useState('')
  const [monthly, setMonthly] = useState('')
  const [error, setError] = useState<string | null>(null)
  const submit = (event: Event) => {
    event.preventDefault()
    const body: Record<string, unknown> = { id }
    if (name !== '') body.name = name
    if (monthly !== '') body.budget = { usd: Number(monthly), per: 'month' }
    props.onSubmit(body).catch((failure: Error) => setError(failure.message))
  }
  return html`<form class="card" onSubmit=${submit} aria-label="Create a team">
    <${Field}
      id="team-id"
      label="Team id"
      value=${id}
      required=${true}
      onInput=${setId}
      hint="Letters, digits, . _ : - ; keys and usage records carry it."
    />
    <${Field} id="team-name" label="Name" value=${name} onInput=${setName} />
    <${Field}
      id="team-budget"
      label="Budget per UTC month (USD)"
      type="number"
      min="0"
      step="0.01"
      value=${monthly}
      onInput=${setMonthly}
    />
    <${Notice} kind="error" text=${error} />
    <p class="actions">
      <button type="submit" class="primary">Create team</button>
      <button type="button" onClick=${props.onCancel}>Cancel</button>
    </p>
  </form>`
}
