import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { Field, Notice } from '../components'
import { budgetPeriods, limitFields, type KeyRow, type MoneyBudget } from './keys-types'

/** The form's text fields, by name (a Map: names are looked up from the limit list). */
type Values = ReadonlyMap<string, string>

function initialValues(key: KeyRow | undefined): Values {
  const values = new Map([
    ['name', key?.name ?? ''],
    ['quotaTokens', key?.quotaTokens?.toString() ?? ''],
    ['expiresAt', key?.expiresAt?.slice(0, 10) ?? ''],
  ])
  for (const [name] of limitFields) values.set(name, key?.limits[name]?.toString() ?? '')
  for (const [per] of budgetPeriods) {
    values.set(`budget-${per}`, key?.budget.find((item) => item.per === per)?.usd.toString() ?? '')
  }
  const alertAt = key?.budget.find((item) => item.alertAt !== undefined)?.alertAt
  values.set('alertAt', alertAt === undefined ? '' : String(Math.round(alertAt * 100)))
  values.set('priceMultiplier', key?.priceMultiplier?.toString() ?? '')
  return values
}

/** A positive decimal, or an error naming what was typed. */
function decimal(text: string, what: string): number {
  const value = Number(text)
  if (text === '' || !Number.isFinite(value) || value < 0) {
    throw new Error(`${what}: "${text}" is not an amount.`)
  }
  return value
}

/**
 * The create and edit form of a key: name, groups, limits, lifetime quota, money budgets (per
 * day, month, in all, with an alert threshold), price multiplier and expiry. On edit, only what
 * changed is sent, and an emptied field clears its setting (`null`); budgets go whole.
 */
export function KeyForm(props: {
  groups: readonly string[]
  editing?: KeyRow
  onSubmit: (body: Record<string, unknown>) => Promise<void>
  onCancel: () => void
}) {
  const editing = props.editing
  const [values, setValues] = useState<Values>(initialValues(editing))
  const [groups, setGroups] = useState<string[] | null>(editing?.groups ?? null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const prefix = editing === undefined ? 'new' : 'edit'
  const set = (name: string) => (value: string) => setValues(new Map(values).set(name, value))
  const text = (name: string) => values.get(name) ?? ''
  const initial = initialValues(editing)

  const number = (name: string): number | null | undefined => {
    const entered = text(name).trim()
    if (editing !== undefined && entered === initial.get(name)) return undefined
    if (entered === '') return editing === undefined ? undefined : null
    const value = Number(entered)
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new Error(`"${entered}" is not a whole number.`)
    }
    return value
  }

  const submit = (event: Event) => {
    event.preventDefault()
    let body: Record<string, unknown>
    try {
      body = {}
      const name = text('name').trim()
      if (editing === undefined ? name !== '' : name !== initial.get('name')) {
        body.name = name === '' ? null : name
      }
      if (
        editing === undefined
          ? groups !== null
          : JSON.stringify(groups) !== JSON.stringify(editing.groups)
      ) {
        body.groups = groups
      }
      const quota = number('quotaTokens')
      if (quota !== undefined) body.quotaTokens = quota
      const limits: Record<string, number | null> = {}
      for (const [limit] of limitFields) {
        const value = number(limit)
        if (value !== undefined) limits[limit] = value
      }
      if (Object.keys(limits).length > 0) body.limits = limits
      const budgetNames = [...budgetPeriods.map(([per]) => `budget-${per}`), 'alertAt']
      if (budgetNames.some((name) => text(name).trim() !== (initial.get(name) ?? ''))) {
        const alert = text('alertAt').trim()
        const alertAt = alert === '' ? undefined : decimal(alert, 'Alert at') / 100
        const budget: MoneyBudget[] = []
        for (const [per, label] of budgetPeriods) {
          const entered = text(`budget-${per}`).trim()
          if (entered === '') continue
          budget.push({
            usd: decimal(entered, label),
            per,
            ...(alertAt === undefined ? {} : { alertAt }),
          })
        }
        if (budget.length > 0) body.budget = budget
        else if (editing !== undefined) body.budget = null
      }
      const multiplier = text('priceMultiplier').trim()
      if (multiplier !== (initial.get('priceMultiplier') ?? '')) {
        if (multiplier !== '') body.priceMultiplier = decimal(multiplier, 'Price multiplier')
        else if (editing !== undefined) body.priceMultiplier = null
      }
      const expires = text('expiresAt')
      if (editing === undefined ? expires !== '' : expires !== initial.get('expiresAt')) {
        body.expiresAt = expires === '' ? null : `${expires}T00:00:00Z`
      }
    } catch (failure) {
      setError((failure as Error).message)
      return
    }
    setBusy(true)
    setError(null)
    props.onSubmit(body).catch((failure: Error) => {
      setError(failure.message)
      setBusy(false)
    })
  }

  const toggleGroup = (group: string, checked: boolean) => {
    const current = groups ?? [...props.groups]
    const next = checked ? [...current, group] : current.filter((item) => item !== group)
    setGroups(props.groups.every((item) => next.includes(item)) ? null : next)
  }

  return html`<form class="card key-form" onSubmit=${submit} aria-labelledby=${`${prefix}-title`}>
    <h2 id=${`${prefix}-title`}>
      ${editing === undefined ? 'Create a key' : `Edit ${editing.name}`}
    </h2>
    <div class="grid">
      <${Field} id=${`${prefix}-name`} label="Name" value=${text('name')} onInput=${set('name')} />
      <fieldset class="groups">
        <legend>Groups it may use</legend>
        ${props.groups.map(
          (group) =>
            html`<label class="check">
              <input
                type="checkbox"
                checked=${groups === null || groups.includes(group)}
                onChange=${(event: Event) => toggleGroup(group, (event.target as HTMLInputElement).checked)}
              />
              ${group}
            </label>`,
        )}
        <small
          >${groups === null ? 'Every group, including groups added later.' : `${groups.length} of ${props.groups.length}.`}</small
        >
      </fieldset>
      ${limitFields.map(
        ([name, label]) =>
          html`<${Field}
            id=${`${prefix}-${name}`}
            label=${label}
            type="number"
            min="0"
            value=${text(name)}
            onInput=${set(name)}
            hint="Empty: no limit."
          />`,
      )}
      <${Field}
        id=${`${prefix}-quotaTokens`}
        label="Tokens in all (lifetime quota)"
        type="number"
        min="0"
        value=${text('quotaTokens')}
        onInput=${set('quotaTokens')}
        hint="Empty: unlimited."
      />
      ${budgetPeriods.map(
        ([per, label]) =>
          html`<${Field}
            id=${`${prefix}-budget-${per}`}
            label=${label}
            type="number"
            min="0"
            step="any"
            value=${text(`budget-${per}`)}
            onInput=${set(`budget-${per}`)}
            hint="Empty: no budget. Requests past it get 429 budget_exceeded."
          />`,
      )}
      <${Field}
        id=${`${prefix}-alertAt`}
        label="Alert at (% of each budget)"
        type="number"
        min="1"
        value=${text('alertAt')}
        onInput=${set('alertAt')}
        hint="Empty: no alert."
      />
      <${Field}
        id=${`${prefix}-priceMultiplier`}
        label="Price multiplier"
        type="number"
        min="0"
        step="any"
        value=${text('priceMultiplier')}
        onInput=${set('priceMultiplier')}
        hint="× the price of every request (a margin). Empty: 1."
      />
      <${Field}
        id=${`${prefix}-expiresAt`}
        label="Expires (UTC day)"
        type="date"
        value=${text('expiresAt')}
        onInput=${set('expiresAt')}
        hint="Empty: never."
      />
    </div>
    <${Notice} kind="error" text=${error} />
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>
        ${editing === undefined ? 'Create key' : 'Save changes'}
      </button>
      <button type="button" onClick=${props.onCancel}>Cancel</button>
    </div>
  </form>`
}
