import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import type { PageProps } from '../page-props'
import { BarChart } from '../chart'
import { Loading, Notice } from '../components'
import { count, short, usd } from '../format'

type Totals = {
  requests: number
  errorRequests?: number
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  totalTokens: number
  /** Nano-USD; `null` where the meter predates prices. */
  costNanoUsd: number | null
  unpricedRequests: number | null
  /** Response-cache hits and what they saved (nano-USD); absent or `null` where not counted. */
  cacheHits?: number | null
  savedCostNanoUsd?: number | null
}

/**
 * What a row spent, how many of its requests had no price (their spend is unknown), and what its
 * response-cache hits saved.
 */
function spendText(row: Totals): string {
  const unpriced = row.unpricedRequests ?? 0
  const hits = row.cacheHits ?? 0
  const saved =
    hits > 0
      ? ` (${count(hits)} cache ${hits === 1 ? 'hit' : 'hits'} saved ${usd(row.savedCostNanoUsd ?? 0)})`
      : ''
  return `${usd(row.costNanoUsd)}${unpriced > 0 ? ` + ${count(unpriced)} unpriced` : ''}${saved}`
}

type UsageAnswer =
  | {
      source: 'ledger'
      keys: Array<{ id: string; name: string }>
      report: {
        since: string
        until: string
        days: Array<{ day: string } & Totals>
        models: Array<{ model: string } & Totals>
        keys: Array<{ keyId: string } & Totals>
        /** Per routing group; absent where the ledger cannot tell. */
        groups?: Array<{ groupId: string } & Totals>
        totals: Totals
      }
    }
  | {
      source: 'meter'
      keys: Array<{ id: string; name: string }>
      totals: Array<{ keyId: string } & Totals>
    }

const dayMs = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Every day of a span, so that days without requests show as empty bars. */
function spanDays(since: string, until: string): string[] {
  const days: string[] = []
  for (let at = Date.parse(since); at <= Date.parse(until); at += dayMs) days.push(isoDay(at))
  return days
}

function TotalsTable(props: {
  caption: string
  head: string
  rows: Array<{ label: string } & Totals>
  /** Whether the row labels are UTC days (kept on one line). */
  days?: boolean
}) {
  return html`<table class="totals">
    <caption>
      ${props.caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">${props.head}</th>
        <th scope="col">Requests</th>
        <th scope="col">Input</th>
        <th scope="col">Output</th>
        <th scope="col">Cached input</th>
        <th scope="col">Total tokens</th>
        <th scope="col">Spend</th>
      </tr>
    </thead>
    <tbody>
      ${props.rows.map(
        (row) =>
          html`<tr>
            <th scope="row" data-label=${props.head}>
              ${props.days === true ? html`<time datetime=${row.label}>${row.label}</time>` : row.label}
            </th>
            <td data-label="Requests">${count(row.requests)}</td>
            <td data-label="Input">${count(row.inputTokens)}</td>
            <td data-label="Output">${count(row.outputTokens)}</td>
            <td data-label="Cached input">${count(row.cachedInputTokens)}</td>
            <td data-label="Total tokens">${count(row.totalTokens)}</td>
            <td data-label="Spend">${spendText(row)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`
}

/** What the spend chart says when nothing in its span cost anything: why there is no bar. */
function unpricedNote(totals: Totals): string {
  const unpriced = totals.unpricedRequests ?? 0
  if (unpriced >= totals.requests && totals.requests === 1)
    return 'Nothing priced to chart: the one request in this span was on a model without a price, so its spend is not known.'
  if (unpriced >= totals.requests)
    return `Nothing priced to chart: the ${count(totals.requests)} requests in this span were on models without a price, so their spend is not known.`
  if (unpriced > 0)
    return `Nothing priced to chart: ${count(unpriced)} of ${count(totals.requests)} requests in this span ${unpriced === 1 ? 'was' : 'were'} on models without a price, and the others cost nothing.`
  return 'No spend to chart: the requests in this span cost nothing.'
}

/** The span's response-cache hits and what they saved, or `null` when there were none. */
function CacheFigure(props: { totals: Totals }) {
  const hits = props.totals.cacheHits ?? 0
  if (hits === 0) return null
  return html`<div>
    <dt>Cache hits</dt>
    <dd data-testid="total-cache-hits">
      ${count(hits)}, saved ${usd(props.totals.savedCostNanoUsd ?? 0)}
    </dd>
  </div>`
}

/**
 * Usage: tokens and spend per day (charts), per model, per key and per routing group (with
 * response-cache hits and what they saved), over a span of at most 92 days: one request per view.
 */
export function UsagePage(props: PageProps) {
  const today = isoDay(Date.now())
  const [since, setSince] = useState(isoDay(Date.parse(today) - 29 * dayMs))
  const [until, setUntil] = useState(today)
  const [keyId, setKeyId] = useState('')
  const [data, setData] = useState<UsageAnswer | null>(null)
  const [error, setError] = useState<string | null>(null)
  const staff = props.session.user.role !== 'key'

  const load = (from = since, to = until, key = keyId) => {
    const query = new URLSearchParams({ since: from, until: to })
    if (key !== '') query.set('key', key)
    api<UsageAnswer>(`/usage?${query.toString()}`).then(
      (answer) => {
        setData(answer)
        setError(null)
      },
      (failure: Error) => setError(failure.message),
    )
  }
  useEffect(() => load(), [])
  const lastDays = (days: number) => {
    const from = isoDay(Date.parse(today) - (days - 1) * dayMs)
    setSince(from)
    setUntil(today)
    load(from, today)
  }
  const names = new Map((data?.keys ?? []).map((key) => [key.id, key.name]))

  return html`<form
      class="card range"
      onSubmit=${(event: Event) => {
        event.preventDefault()
        load()
      }}
    >
      <div class="field">
        <label for="since">From (UTC day)</label
        ><input
          id="since"
          type="date"
          value=${since}
          max=${until}
          onInput=${(event: Event) => setSince((event.target as HTMLInputElement).value)}
        />
      </div>
      <div class="field">
        <label for="until">To</label
        ><input
          id="until"
          type="date"
          value=${until}
          max=${today}
          onInput=${(event: Event) => setUntil((event.target as HTMLInputElement).value)}
        />
      </div>
      ${
        staff
          ? html`<div class="field">
              <label for="usage-key">Key</label>
              <select
                id="usage-key"
                value=${keyId}
                onChange=${(event: Event) => setKeyId((event.target as HTMLSelectElement).value)}
              >
                <option value="">All keys</option>
                ${(data?.keys ?? []).map((key) => html`<option value=${key.id}>${key.name}</option>`)}
              </select>
            </div>`
          : null
      }
      <div class="actions">
        <button type="submit" class="primary">Show</button>
        <button type="button" onClick=${() => lastDays(7)}>7 days</button>
        <button type="button" onClick=${() => lastDays(30)}>30 days</button>
        <button type="button" onClick=${() => lastDays(90)}>90 days</button>
      </div>
      <small>At most 92 days at a time.</small>
    </form>
    <${Notice} kind="error" text=${data === null ? null : error} />
    ${
      data === null
        ? html`<${Loading} error=${error} />`
        : data.source === 'meter'
          ? html`<p class="muted">
                This gateway keeps no usage history (no usage ledger): these are the meter's totals
                per key since it started.
              </p>
              <${TotalsTable}
                caption="Usage per key"
                head="Key"
                rows=${data.totals.map((row) => ({ ...row, label: names.get(row.keyId) ?? row.keyId }))}
              />`
          : data.report.totals.requests === 0
            ? html`<p data-testid="no-usage">
                No requests from ${data.report.since} to
                ${data.report.until}${keyId === '' ? '' : ' with this key'}.
              </p>`
            : html`<dl class="figures">
                  <div>
                    <dt>Requests</dt>
                    <dd data-testid="total-requests">${count(data.report.totals.requests)}</dd>
                  </div>
                  <div>
                    <dt>Input tokens</dt>
                    <dd>${short(data.report.totals.inputTokens)}</dd>
                  </div>
                  <div>
                    <dt>Output tokens</dt>
                    <dd>${short(data.report.totals.outputTokens)}</dd>
                  </div>
                  <div>
                    <dt>Total tokens</dt>
                    <dd data-testid="total-tokens">${count(data.report.totals.totalTokens)}</dd>
                  </div>
                  <div>
                    <dt>Spend</dt>
                    <dd data-testid="total-spend">${spendText(data.report.totals)}</dd>
                  </div>
                  <${CacheFigure} totals=${data.report.totals} />
                </dl>
                <${BarChart}
                  title=${`Tokens per day, ${data.report.since} to ${data.report.until}`}
                  legend=${['input tokens', 'output tokens']}
                  empty="No tokens were counted in this span: nothing to chart."
                  bars=${spanDays(data.report.since, data.report.until).map((day) => {
                    const found = data.report.days.find((row) => row.day === day)
                    return {
                      label: day,
                      parts: [found?.inputTokens ?? 0, found?.outputTokens ?? 0],
                    }
                  })}
                />
                <${BarChart}
                  title=${`Spend per day (USD), ${data.report.since} to ${data.report.until}`}
                  legend=${['spend']}
                  format=${usd}
                  empty=${unpricedNote(data.report.totals)}
                  bars=${spanDays(data.report.since, data.report.until).map((day) => ({
                    label: day,
                    parts: [data.report.days.find((row) => row.day === day)?.costNanoUsd ?? 0],
                  }))}
                />
                <${TotalsTable}
                  caption="Per day"
                  head="Day"
                  days
                  rows=${data.report.days.map((row) => ({ ...row, label: row.day }))}
                />
                <${TotalsTable}
                  caption="Per model"
                  head="Model"
                  rows=${data.report.models.map((row) => ({ ...row, label: row.model }))}
                />
                ${
                  staff
                    ? html`<${TotalsTable}
                        caption="Per key"
                        head="Key"
                        rows=${data.report.keys.map((row) => ({ ...row, label: names.get(row.keyId) ?? row.keyId }))}
                      />`
                    : null
                }
                ${
                  data.report.groups === undefined || data.report.groups.length === 0
                    ? null
                    : html`<${TotalsTable}
                        caption="Per group"
                        head="Group"
                        rows=${data.report.groups.map((row) => ({ ...row, label: row.groupId }))}
                      />`
                }`
    }`
}
