import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  createPrometheusMetrics,
  type RequestEvent,
} from '../../src/index'
import { baseUrlOf, failingUpstreams, type Cue } from '../helpers/failing-upstreams'
import { keys } from '../helpers/gateway'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// A failed attempt may log a warning line: captured, not printed.
captureGatewayWarnings()

/** A gateway over one OpenAI upstream that does what `script` says with its n-th call. */
function gatewayOver(script: (call: number) => Cue) {
  const upstreams = failingUpstreams('openai', (_host, call) => script(call))
  const events: RequestEvent[] = []
  const gateway = createGateway({
    groups: [
      {
        id: 'g',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [
          { id: 'a', baseUrl: baseUrlOf('openai', 'a'), apiKey: 'sk-a-upstream-secret-0000000' },
        ],
        cache: { ttlSeconds: 60 },
      },
    ],
    keys: [{ key: keys.main }],
    usageMeter: createMemoryUsageMeter(),
    onEvent: (event) => void events.push(event),
    fetch: upstreams.fetch,
  })
  const ask = async (stream: boolean) => {
    const response = await gateway(
      new Request('http://gateway.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'faults' }],
          stream,
        }),
      }),
    )
    let text = ''
    try {
      text = await response.text()
    } catch {
      text = '<cut>'
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
    return { status: response.status, cache: response.headers.get('x-gateway-cache'), text }
  }
  return { ask, calls: upstreams.calls, events }
}

describe('what the cache never keeps', () => {
  it('an error answer is not cached, and carries x-gateway-cache', async () => {
    // Every attempt of the first request fails (3 by default), so its client gets the error.
    const { ask, calls } = gatewayOver((call) =>
      call <= 3 ? { kind: 'status', status: 500 } : { kind: 'ok' },
    )
    const failed = await ask(false)
    expect(failed.status).toBeGreaterThanOrEqual(500)
    expect(failed.cache).toBe('miss')
    const answered = await ask(false)
    expect(answered).toMatchObject({ status: 200, cache: 'miss' })
    const hit = await ask(false)
    expect(hit).toMatchObject({ status: 200, cache: 'hit' })
    expect(calls).toHaveLength(4)
  })

  it('a stream cut mid-way is not cached; the next whole one is', async () => {
    const { ask, calls, events } = gatewayOver((call) =>
      call === 1 ? { kind: 'reset-after-first-byte' } : { kind: 'ok' },
    )
    const cut = await ask(true)
    expect(cut.status).toBe(200)
    expect(events[0]!.outcome).not.toBe('ok')
    expect((await ask(true)).cache).toBe('miss')
    const hit = await ask(true)
    expect(hit.cache).toBe('hit')
    expect(hit.text.match(/data: \[DONE\]/g)).toHaveLength(1)
    expect(calls).toHaveLength(2)
  })

  it('an upstream error event in a 200 stream is not cached', async () => {
    // An error event before the first byte is retried: every attempt of the first request (3 by
    // default) sends one, so its client gets the error.
    const { ask, calls } = gatewayOver((call) =>
      call <= 3 ? { kind: 'error-event' } : { kind: 'ok' },
    )
    await ask(true)
    expect((await ask(true)).cache).toBe('miss')
    expect((await ask(true)).cache).toBe('hit')
    expect(calls).toHaveLength(4)
  })
})

describe('metrics', () => {
  it('Prometheus counts hits and misses per group, and a hit’s tokens once', async () => {
    const metrics = createPrometheusMetrics()
    const upstreams = failingUpstreams('openai', () => ({ kind: 'ok' }))
    const gateway = createGateway({
      groups: [
        {
          id: 'g',
          protocol: 'openai',
          models: ['gpt-4o-mini'],
          upstreams: [
            { baseUrl: baseUrlOf('openai', 'a'), apiKey: 'sk-a-upstream-secret-0000000' },
          ],
          cache: { ttlSeconds: 60 },
        },
      ],
      keys: [{ key: keys.main }],
      onEvent: metrics.record,
      fetch: upstreams.fetch,
    })
    const inputTokens = async () =>
      Number(
        /model_gateway_usage_tokens_total\{[^}]*token_type="input"[^}]*\} (\d+)/.exec(
          await metrics.render(),
        )?.[1],
      )
    let afterMiss = 0
    for (let index = 0; index < 3; index++) {
      await (
        await gateway(
          new Request('http://gateway.test/v1/chat/completions', {
            method: 'POST',
            headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              model: 'gpt-4o-mini',
              messages: [{ role: 'user', content: 'm' }],
            }),
          }),
        )
      ).text()
      await new Promise((resolve) => setTimeout(resolve, 5))
      if (index === 0) afterMiss = await inputTokens()
    }
    const text = await metrics.render()
    expect(text).toMatch(/model_gateway_cache_requests_total\{[^}]*result="hit"[^}]*\} 2/)
    expect(text).toMatch(/model_gateway_cache_requests_total\{[^}]*result="miss"[^}]*\} 1/)
    expect(afterMiss).toBeGreaterThan(0)
    expect(await inputTokens()).toBe(afterMiss)
    expect(upstreams.calls).toHaveLength(1)
  })
})

describe('a hit and the rate limits', () => {
  it('counts against requests per minute as a request, and a refused hit says so', async () => {
    const gateway = createGateway({
      groups: [
        {
          id: 'g',
          protocol: 'openai',
          models: ['gpt-mock'],
          upstreams: [{ provider: 'mock' }],
          cache: { ttlSeconds: 60 },
        },
      ],
      keys: [{ key: keys.main, limits: { requestsPerMinute: 2 } }],
    })
    const ask = async () => {
      const response = await gateway(
        new Request('http://gateway.test/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'rpm' }] }),
        }),
      )
      await response.text()
      await new Promise((resolve) => setTimeout(resolve, 5))
      return { status: response.status, cache: response.headers.get('x-gateway-cache') }
    }
    expect(await ask()).toEqual({ status: 200, cache: 'miss' })
    expect(await ask()).toEqual({ status: 200, cache: 'hit' })
    expect(await ask()).toEqual({ status: 429, cache: 'hit' })
  })
})
