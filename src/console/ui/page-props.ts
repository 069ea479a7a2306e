import type { SessionInfo } from './api'

/** A key whose secret this page saw (created here, or signed in with): the guide may fill it in. */
export type KnownKey = { id: string; name: string; secret: string }

/** What every page of a signed-in user gets. */
export type PageProps = {
  session: SessionInfo
  knownKeys: readonly KnownKey[]
  rememberKey: (key: KnownKey) => void
}
