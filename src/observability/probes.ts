/** A readiness check: resolves when its store answers, rejects (or times out) when it does not. */
export type ProbeCheck = () => Promise<unknown>

/** Options of `createProbes`: which routes to serve, and what readiness asks. */
export type ProbesOptions = {
  /** The liveness route (such as `/livez`): 200 while the process serves requests. */
  liveness?: string | undefined
  /** The readiness route (such as `/readyz`): 200 when every check answers, else 503. */
  readiness?: string | undefined
  /** The state stores to ask, by name (`postgres`, `redis`…); none: always ready. */
  checks?: Readonly<Record<string, ProbeCheck>> | undefined
  /** How long a check may take before it counts as failed (default 2,000 ms). */
  timeoutMs?: number | undefined
}

/** A handler for the paths it `handles`, mountable beside the gateway. */
export type RouteHandler = ((request: Request) => Promise<Response>) & {
  handles(pathname: string): boolean
}

/**
 * Liveness and readiness routes for load balancers and orchestrators (Kubernetes probes). The
 * liveness route answers 200 `{"status":"live"}` at once; the readiness route asks every check in
 * parallel and answers 200 `{"status":"ready","checks":{…}}` when all answered in time, else 503
 * with each failed check's name and `failed` or `timeout`: never the error text, which may name
 * a host or a user. Both answer `GET` and `HEAD` only, and never cache.
 *
 * @example
 * const probes = createProbes({ liveness: '/livez', readiness: '/readyz', checks: { db: () => pool.query('SELECT 1') } })
 * if (probes.handles(url.pathname)) return probes(request)
 */
export function createProbes(options: ProbesOptions): RouteHandler {
  const timeoutMs = options.timeoutMs ?? 2000
  const checks = Object.entries(options.checks ?? {})
  const answer = (status: number, body: object) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    })

  async function ask(check: ProbeCheck): Promise<'ok' | 'failed' | 'timeout'> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    try {
      return await Promise.race([
        check().then(
          () => 'ok' as const,
          () => 'failed' as const,
        ),
        timeout,
      ])
    } finally {
      clearTimeout(timer)
    }
  }

  const probes = async (request: Request): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } })
    }
    const path = new URL(request.url).pathname
    if (path === options.liveness) return answer(200, { status: 'live' })
    const results = await Promise.all(checks.map(async ([name, check]) => [name, await ask(check)]))
    const ready = results.every(([, result]) => result === 'ok')
    return answer(ready ? 200 : 503, {
      status: ready ? 'ready' : 'unready',
      checks: Object.fromEntries(results),
    })
  }
  return Object.assign(probes, {
    handles: (pathname: string) => pathname === options.liveness || pathname === options.readiness,
  })
}
