/** The signed-in user, as `GET <mount>/api/session` describes them. */
export type SessionUser = { role: 'admin' | 'viewer' | 'key'; name: string; keyId?: string }

export type SessionInfo = {
  user: SessionUser
  csrf: string
  baseUrl: string
  /** The gateway's MCP endpoint; `null` without `mcp`. */
  mcpUrl: string | null
  keyStore: 'postgres' | 'memory' | null
  signOut: boolean
}

export type SignInWays = { tokens: boolean; keyLogin: boolean; external: boolean }

/** An answer the API refused, with the message to show. */
export class ApiError extends Error {
  status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/** Where the console is mounted: the page's path up to `/assets/` of this very script. */
export const mount = new URL(import.meta.url).pathname.replace(/\/assets\/[^/]*$/, '')

let csrf = ''

/** Remembers the CSRF token changes carry. */
export function setCsrf(token: string): void {
  csrf = token
}

/** Calls the console's API; a refusal throws an `ApiError` with the server's message. */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const method = init.method ?? 'GET'
  const headers: Record<string, string> = { accept: 'application/json' }
  if (method !== 'GET') {
    headers['content-type'] = 'application/json'
    headers['x-csrf-token'] = csrf
  }
  let response: Response
  try {
    response = await fetch(`${mount}/api${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
  } catch {
    throw new ApiError(0, 'The gateway does not answer: is it running?')
  }
  const data = (await response.json().catch(() => undefined)) as
    { error?: { message?: string } } | undefined
  if (!response.ok) {
    throw new ApiError(
      response.status,
      data?.error?.message ?? `The server answered ${response.status}.`,
    )
  }
  return data as T
}
