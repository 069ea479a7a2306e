import { createGateway, createMemoryUsageLedger, type GatewayConfig } from '../../src/index'
import {
  createConsole,
  createMemoryKeyAdmin,
  withConsole,
  type ConsoleOptions,
} from '../../src/console/index'

/** The tokens and keys of the console tests' gateway. */
export const adminToken = 'admin-token-0123456789abcdef'
export const viewerToken = 'viewer-token-0123456789abcdef'
export const demoKey = 'sk-console-demo-key-0123456789'
export const otherKey = 'sk-console-other-key-0123456789'
/** A secret an upstream holds: no console answer may ever carry it. */
export const upstreamSecret = 'sk-ant-upstream-SECRET-9f8e7d6c5b4a'
export const origin = 'http://console.test'

/**
 * A gateway with the mock upstream, two config keys (`key-demo` on group `chat` only,
 * `key-other` on every group), a memory key admin, a memory usage ledger, and its console
 * (admin and viewer tokens, key login) mounted at `/console`.
 */
export function consoleGateway(
  options: { console?: ConsoleOptions; config?: Partial<GatewayConfig>; now?: () => number } = {},
) {
  const keys = createMemoryKeyAdmin({ now: options.now })
  const ledger = createMemoryUsageLedger({ now: options.now })
  const gateway = createGateway({
    groups: [
      {
        id: 'chat',
        protocol: 'openai',
        models: [
          'echo-1',
          { name: 'sonnet', upstreamModel: 'claude-sonnet-4-5', fallbacks: ['vault/claude-x'] },
        ],
        upstreams: [{ provider: 'mock' }],
      },
      {
        id: 'vault',
        protocol: 'anthropic',
        models: ['claude-x'],
        upstreams: [
          {
            id: 'vault-upstream',
            baseUrl: 'http://127.0.0.1:9',
            apiKeys: [upstreamSecret, `${upstreamSecret}-2`],
          },
        ],
      },
    ],
    keys: [
      {
        key: demoKey,
        id: 'key-demo',
        name: 'demo',
        groups: ['chat'],
        limits: { tokensPerDay: 100_000 },
      },
      { key: otherKey, id: 'key-other', name: 'other' },
    ],
    keyStore: keys,
    usageLedger: ledger,
    console: { adminTokens: [adminToken], viewerTokens: [viewerToken], keyLogin: true },
    ...(options.now === undefined ? {} : { now: options.now }),
    ...options.config,
  } as GatewayConfig)
  const consoleHandler = createConsole(gateway, { keys, ...options.console })
  return {
    gateway,
    console: consoleHandler,
    app: withConsole(gateway, consoleHandler),
    keys,
    ledger,
  }
}

type Handler = (request: Request, context?: object) => Promise<Response>

/** A browser-like client of the console's API: it keeps the cookie and sends the CSRF token. */
export class ConsoleClient {
  cookies = new Map<string, string>()
  csrf = ''
  readonly app: Handler
  readonly base: string

  constructor(app: Handler, base = origin) {
    this.app = app
    this.base = base
  }

  /** A request as the console page sends it. */
  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await this.app(
      new Request(`${this.base}/console/api${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(cookie === '' ? {} : { cookie }),
          ...(method === 'GET'
            ? {}
            : {
                origin: new URL(this.base).origin,
                'content-type': 'application/json',
                'x-csrf-token': this.csrf,
              }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const [name, value] = pair!.split('=') as [string, string]
      if (/Max-Age=0/.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const data = (await response.json()) as Record<string, unknown> & {
      error?: { message: string }
      csrf?: string
    }
    if (typeof data.csrf === 'string') this.csrf = data.csrf
    return { status: response.status, data, response }
  }

  /** Signs in with a token or key; throws when refused. */
  async signIn(secret: string) {
    const answer = await this.call('POST', '/session', { secret })
    if (answer.status !== 200)
      throw new Error(`sign-in refused: ${answer.status} ${JSON.stringify(answer.data)}`)
    return answer
  }
}
