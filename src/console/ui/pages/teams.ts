import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import { CodeBlock, Field, Loading, Notice } from '../components'
import { count, usd } from '../format'
import type { PageProps } from '../page-props'
import { TeamCard } from './team-card'
import type { TeamRow, TeamsPageData } from './teams-types'

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
