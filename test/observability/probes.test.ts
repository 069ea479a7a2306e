import { describe, expect, it } from 'vitest'
import { createProbes } from '../../src/index'

describe('liveness and readiness probes', () => {
  it('liveness answers at once; readiness asks every store, and says which failed, never why', async () => {
    let database: 'up' | 'down' | 'hung' = 'up'
    const probes = createProbes({
      liveness: '/livez',
      readiness: '/readyz',
      timeoutMs: 50,
      checks: {
        postgres: () =>
          database === 'up'
            ? Promise.resolve()
            : database === 'down'
              ? Promise.reject(new Error('connect ECONNREFUSED db.internal:5432 user=admin'))
              : new Promise(() => undefined),
        redis: async () => 'PONG',
      },
    })
    expect(probes.handles('/livez')).toBe(true)
    expect(probes.handles('/readyz')).toBe(true)
    expect(probes.handles('/v1/models')).toBe(false)
    const live = await probes(new Request('http://x/livez'))
    expect(live.status).toBe(200)
    expect(await live.json()).toEqual({ status: 'live' })
    const ready = await probes(new Request('http://x/readyz'))
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', redis: 'ok' },
    })
    database = 'down'
    const down = await probes(new Request('http://x/readyz'))
    expect(down.status).toBe(503)
    const text = await down.text()
    expect(JSON.parse(text)).toEqual({
      status: 'unready',
      checks: { postgres: 'failed', redis: 'ok' },
    })
    expect(text).not.toContain('db.internal')
    database = 'hung'
    const hung = await probes(new Request('http://x/readyz'))
    expect(hung.status).toBe(503)
    expect((await hung.json()).checks.postgres).toBe('timeout')
    expect((await probes(new Request('http://x/livez', { method: 'POST' }))).status).toBe(405)
  })

  it('with no state store, the gateway is ready', async () => {
    const probes = createProbes({ readiness: '/readyz' })
    expect(probes.handles('/livez')).toBe(false)
    expect((await probes(new Request('http://x/readyz'))).status).toBe(200)
  })
})
