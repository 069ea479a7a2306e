/** Where the Node AWS chain reads its settings: for tests, every part can be given. */
export type ChainOptions = {
  /** The environment; `process.env` by default. */
  env: Readonly<Record<string, string | undefined>>
  /** The home folder the shared files are under by default; `os.homedir()` by default. */
  home?: string | undefined
  /** The fetch the endpoints are asked with; the global one by default. */
  fetch?: typeof fetch | undefined
  /** How long an endpoint may take to answer, ms (container 2 s, instance metadata 1 s). */
  timeoutMs?: number | undefined
  /** The clock, epoch ms (for signing AssumeRole). */
  now?: (() => number) | undefined
}
