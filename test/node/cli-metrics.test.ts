import OpenAI from 'openai'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { connectRedis, deletePrefix, freePort } from '../helpers/redis'
import { readExposition } from '../observability/prometheus-format'

const served: ServedCli[] = []
// The first test's CLI meters in the machine's Redis, under a prefix of this run's own (the
// config allows only [a-z0-9_]): removed afterwards.
const prefix = `mgm${process.pid}_${crypto.randomUUID().slice(0, 8)}`
afterAll(async () => {
  await Promise.all(served.map((gateway) => gateway.stop('SIGKILL')))
  const redis = await connectRedis()
  await deletePrefix(redis, prefix)
  redis.destroy()
})

const token = 'metrics-token-for-the-cli-test-0123'
const config = (redis: string) => ({
  groups: [
    { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
  ],
  keys: [{ key: 'sk-cli-metrics-0123456789abcdefABCD' }],
  state: { redis, prefix },
  metrics: { path: '/metrics', token: '${METRICS_TOKEN}' },
  probes: { liveness: '/livez', readiness: '/readyz' },
})

describe('the CLI serves metrics and probes', { timeout: 60_000 }, () => {
  it('metrics behind the bearer token, liveness, and readiness asking Redis', async () => {
    const gateway = await serveCli(
      ['--config', writeConfig(config('redis://127.0.0.1:6379')), '--port', '0'],
      { METRICS_TOKEN: token },
    )
    served.push(gateway)
    await vi.waitFor(() =>
      expect(gateway.output()).toContain(`model-gateway serves ${gateway.url}/metrics`),
    )
    const openai = new OpenAI({
      apiKey: 'sk-cli-metrics-0123456789abcdefABCD',
      baseURL: `${gateway.url}/v1`,
    })
    await openai.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'hello' }],
    })
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(401)
    const wrong = await fetch(`${gateway.url}/metrics`, {
      headers: { authorization: 'Bearer not-the-token-0123456789' },
    })
    expect(wrong.status).toBe(401)
    const scraped = await fetch(`${gateway.url}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(scraped.status).toBe(200)
    const families = readExposition(await scraped.text())
    const requests = families.get('model_gateway_requests_total')!
    expect(requests.samples).toEqual([
      {
        name: 'model_gateway_requests_total',
        labels: {
          model_gateway_route: 'chat.completions',
          model_gateway_outcome: 'ok',
          http_response_status_code: '200',
          model_gateway_group: 'demo',
          gen_ai_request_model: 'demo-echo',
        },
        value: 1,
      },
    ])
    expect(families.get('model_gateway_circuit_state')!.samples).toHaveLength(1)

    const live = await fetch(`${gateway.url}/livez`)
    expect(live.status).toBe(200)
    const ready = await fetch(`${gateway.url}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: 'ready', checks: { redis: 'ok' } })
    // The API still answers beside them.
    expect((await fetch(`${gateway.url}/v1/models`)).status).toBe(401)
  })

  it('readiness is 503 while Redis does not answer; liveness stays 200', async () => {
    const port = await freePort()
    const gateway = await serveCli(
      ['--config', writeConfig(config(`redis://127.0.0.1:${port}`)), '--port', '0'],
      { METRICS_TOKEN: token },
    )
    served.push(gateway)
    expect((await fetch(`${gateway.url}/livez`)).status).toBe(200)
    await vi.waitFor(
      async () => {
        const ready = await fetch(`${gateway.url}/readyz`)
        expect(ready.status).toBe(503)
        expect((await ready.json()).checks.redis).toMatch(/^(failed|timeout)$/)
      },
      { timeout: 10_000 },
    )
  })
})
