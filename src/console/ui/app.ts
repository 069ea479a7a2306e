import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { api, setCsrf, type SessionInfo, type SignInWays } from './api'
import { Notice } from './components'
import { GuidePage } from './pages/guide'
import { HealthPage } from './pages/health'
import { KeysPage } from './pages/keys'
import { McpPage } from './pages/mcp'
import { ModelsPage } from './pages/models'
import { SignInPage } from './pages/sign-in'
import { TeamsPage } from './pages/teams'
import { UsagePage } from './pages/usage'
import type { KnownKey, PageProps } from './page-props'

type Page = {
  id: string
  title: string
  view: (props: PageProps) => unknown
  staffOnly?: boolean
  /** Shown only when the gateway has an `mcp` section. */
  mcpOnly?: boolean
}

const pages: readonly Page[] = [
  { id: 'keys', title: 'API keys', view: (props) => html`<${KeysPage} ...${props} />` },
  { id: 'guide', title: 'Call guide', view: (props) => html`<${GuidePage} ...${props} />` },
  { id: 'models', title: 'Models', view: (props) => html`<${ModelsPage} ...${props} />` },
  { id: 'usage', title: 'Usage', view: (props) => html`<${UsagePage} ...${props} />` },
  { id: 'mcp', title: 'MCP', view: (props) => html`<${McpPage} ...${props} />`, mcpOnly: true },
  {
    id: 'teams',
    title: 'Teams',
    view: (props) => html`<${TeamsPage} ...${props} />`,
    staffOnly: true,
  },
  {
    id: 'health',
    title: 'Health',
    view: (props) => html`<${HealthPage} ...${props} />`,
    staffOnly: true,
  },
]

/** The console's name, in every tab title and on the sign-in page. */
const consoleName = 'model-gateway console'

function currentPageId(): string {
  return location.hash.replace(/^#\/?/, '').split('?')[0] || 'keys'
}

/** The console: sign-in until signed in, then the pages the user's role may see. */
export function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined)
  const [ways, setWays] = useState<SignInWays | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [pageId, setPageId] = useState(currentPageId())
  const [knownKeys, setKnownKeys] = useState<KnownKey[]>([])

  const load = () =>
    api<SessionInfo | { user: null; signIn: SignInWays }>('/session').then(
      (info) => {
        if (info.user === null) {
          setWays((info as { signIn: SignInWays }).signIn)
          setSession(null)
        } else {
          setCsrf((info as SessionInfo).csrf)
          setSession(info as SessionInfo)
        }
      },
      (failure: Error) => setError(failure.message),
    )

  useEffect(() => {
    void load()
    const onHash = () => setPageId(currentPageId())
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])

  // The tab names the page the user sees: the console while it loads, "Sign in" without a session
  // (whatever page the address names), else the page shown, which for a key holder asking for a staff page is the keys page.
  const staff = session !== null && session !== undefined && session.user.role !== 'key'
  const mcp = session !== null && session !== undefined && session.mcpUrl !== null
  const visible = pages.filter(
    (page) => (staff || page.staffOnly !== true) && (mcp || page.mcpOnly !== true),
  )
  const page = visible.find((item) => item.id === pageId) ?? visible[0]!
  const title =
    session === undefined
      ? consoleName
      : `${session === null ? 'Sign in' : page.title} · ${consoleName}`
  useEffect(() => {
    document.title = title
  }, [title])

  if (error !== null)
    return html`<main class="page"><${Notice} kind="error" text=${error} /></main>`
  if (session === undefined) return html`<p class="boot" role="status">Loading the console…</p>`
  if (session === null) {
    return html`<${SignInPage}
      ways=${ways}
      onSignedIn=${(info: SessionInfo, secret: string) => {
        setCsrf(info.csrf)
        if (info.user.role === 'key' && info.user.keyId !== undefined) {
          setKnownKeys([{ id: info.user.keyId, name: info.user.name, secret }])
        }
        setSession(info)
      }}
    />`
  }
  const signOut = () =>
    api('/session', { method: 'DELETE' }).then(
      () => {
        setKnownKeys([])
        setSession(null)
        void load()
      },
      (failure: Error) => setError(failure.message),
    )
  const props: PageProps = {
    session,
    knownKeys,
    rememberKey: (key) =>
      setKnownKeys((keys) => [key, ...keys.filter((item) => item.id !== key.id)]),
  }
  return html`<a class="skip" href="#main">Skip to the page</a>
    <header class="top">
      <span class="brand">model-gateway</span>
      <nav aria-label="Console pages">
        ${visible.map(
          (item) =>
            html`<a href=${`#/${item.id}`} aria-current=${item.id === page.id ? 'page' : undefined}
              >${item.title}</a
            >`,
        )}
      </nav>
      <span class="who">
        <span
          >${`${session.user.name} (${session.user.role === 'key' ? 'key holder' : session.user.role})`}</span
        >
        ${session.signOut ? html`<button type="button" class="link" onClick=${signOut}>Sign out</button>` : null}
      </span>
    </header>
    <main id="main" class="page" tabindex="-1">
      <h1>${page.title}</h1>
      ${page.view(props)}
    </main>`
}
