/**
 * The demo's start-up text: a plaintext key from the config and a curl line that uses it, and the
 * console's address with the admin token made up for it. Printed only with `--print-demo` (which
 * `npm start` passes), since it shows a full key on purpose.
 */
export function demoBanner(config: unknown, url: string, consoleToken?: string): string {
  const consoleLines = consoleBanner(config, url, consoleToken)
  const { keys = [], groups = [] } = config as {
    keys?: Array<{ key?: string; groups?: string[] }>
    groups?: Array<{ id: string; models: Array<string | { name: string }> }>
  }
  const key = keys.find((entry) => typeof entry.key === 'string')
  if (key?.key === undefined) {
    return ['No plaintext key in the config: use one of your keys.', ...consoleLines].join('\n')
  }
  const group = groups.find((entry) => key.groups === undefined || key.groups.includes(entry.id))
  const first = group?.models[0]
  const model = typeof first === 'string' ? first : (first?.name ?? 'your-model')
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello, gateway!' }] })
  const curl = (path: string, json: string) =>
    `  curl ${url}${path} -H "Authorization: Bearer ${key.key}" -H "Content-Type: application/json" -d '${json}'`
  return [
    `Demo key: ${key.key}`,
    'Try it:',
    curl('/v1/chat/completions', body),
    // The Responses API (Codex, the Agents SDK) is served too, for any model.
    curl('/v1/responses', JSON.stringify({ model, input: 'Hello, Responses!' })),
    ...consoleLines,
  ].join('\n')
}

/** The console's lines: where it is, and the token to sign in with when the CLI made one up. */
function consoleBanner(config: unknown, url: string, token: string | undefined): string[] {
  const section = (config as { console?: { path?: unknown } }).console
  if (section === undefined) return []
  const path = typeof section.path === 'string' ? section.path : '/console'
  return [
    `Console: ${url}${path}/`,
    token === undefined
      ? 'Sign in with an admin token from the config (console.adminTokens).'
      : `Sign in with the admin token ${token} (made up for this run: set CONSOLE_ADMIN_TOKEN to choose one).`,
  ]
}
