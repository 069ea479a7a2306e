import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { api, type SessionInfo, type SignInWays } from '../api'
import { Notice } from '../components'

/** The sign-in form: an admin or viewer token, or (when allowed) the holder's own API key. */
export function SignInPage(props: {
  ways: SignInWays | null
  onSignedIn: (info: SessionInfo, secret: string) => void
}) {
  const [secret, setSecret] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const ways = props.ways
  if (ways !== null && !ways.tokens && !ways.keyLogin) {
    return html`<main class="page narrow" id="main">
      <h1>model-gateway console</h1>
      <p>Sign in through the application this console is part of, then reload.</p>
    </main>`
  }
  const what =
    ways?.tokens === true && ways.keyLogin
      ? 'Admin token or API key'
      : ways?.keyLogin === true
        ? 'Your API key'
        : 'Admin token'
  const submit = (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    api<SessionInfo>('/session', { method: 'POST', body: { secret } }).then(
      (info) => props.onSignedIn(info, secret),
      (failure: Error) => {
        setError(failure.message)
        setBusy(false)
      },
    )
  }
  return html`<main class="page narrow" id="main">
    <h1>model-gateway console</h1>
    <form class="card" onSubmit=${submit}>
      <h2>Sign in</h2>
      <div class="field">
        <label for="secret">${what}</label>
        <input
          id="secret"
          type="password"
          autocomplete="current-password"
          required
          value=${secret}
          onInput=${(event: Event) => setSecret((event.target as HTMLInputElement).value)}
        />
        ${
          ways?.keyLogin === true
            ? html`<small
                >With an API key you see that key only: its usage, limits, guide and models.</small
              >`
            : null
        }
      </div>
      <${Notice} kind="error" text=${error} />
      <button type="submit" class="primary" disabled=${busy}>Sign in</button>
    </form>
  </main>`
}
