import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGateway, GatewayConfigError, type GatewayConfig } from '../../src/index'
import { connectState, readStateConfig } from '../../src/node/index'
import { runCli, writeConfig } from '../helpers/cli'
import { freePort } from '../helpers/redis'

const base = {
  groups: [
    { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
  ],
  keys: [{ key: 'sk-state-test-0123456789abcdefABCD', limits: { tokensPerDay: 1000 } }],
} satisfies GatewayConfig

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('state.redis', () => {
  it('is refused by the core without a usage meter: the core opens no connections', () => {
    const build = () => createGateway({ ...base, state: { redis: 'redis://127.0.0.1:6379' } })
    expect(build).toThrow(GatewayConfigError)
    expect(build).toThrow(
      /state\.redis: the core opens no connections: use createGatewayWithState\(\) from "model-gateway\/node"/,
    )
    // The prefix alone, or a meter passed in code, needs no connection.
    expect(() => createGateway({ ...base, state: { prefix: 'mg' } })).not.toThrow()
  })

  it('validates the Redis fields and expands ${NAME}', () => {
    expect(
      readStateConfig(
        {
          redis: '${REDIS_URL}',
          redisTimeoutMs: 150,
          leaseMs: 30_000,
          onFailure: { expectedInstances: 3 },
        },
        { REDIS_URL: 'rediss://cache:6380/0' },
      ),
    ).toEqual({
      redis: 'rediss://cache:6380/0',
      redisTimeoutMs: 150,
      leaseMs: 30_000,
      onFailure: { expectedInstances: 3 },
    })
    expect(() => readStateConfig({ redis: '${MG_TEST_UNSET_REDIS_URL}' }, {})).toThrow(
      /state\.redis: environment variable MG_TEST_UNSET_REDIS_URL is not set/,
    )
  })

  it('exits 1 from the CLI listing every bad Redis field', async () => {
    const result = await runCli([
      '--config',
      writeConfig({
        ...base,
        state: { redis: 'http://127.0.0.1:6379', onFailure: { budgets: 'maybe' }, leaseMs: 10 },
      }),
      '--port',
      '0',
    ])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('state.redis: expected a redis:// or rediss:// URL')
    expect(result.stderr).toContain('state.onFailure.budgets')
    expect(result.stderr).toContain('state.leaseMs')
  })

  it('starts degraded when Redis is down at start, says so once, and shares limits once it is up', async () => {
    const port = await freePort()
    const logs: string[] = []
    const state = await connectState(
      readStateConfig({ redis: `redis://127.0.0.1:${port}`, prefix: `t${process.pid}` }),
      {
        redisConnectTimeoutMs: 300,
        logger: { warn: (line) => logs.push(line), error: (line) => logs.push(line) },
      },
    )
    cleanups.push(() => state.close())
    const gateway = createGateway({ ...base, usageMeter: state.usageMeter })
    const call = () =>
      gateway(
        new Request('http://gateway.test/v1/chat/completions', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${base.keys[0]!.key}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ model: 'demo-echo', messages: [{ role: 'user', content: 'hi' }] }),
        }),
      )
    // A key with a daily budget, and nowhere to check it: 503, budgets fail closed.
    expect((await call()).status).toBe(503)
    expect(logs).toHaveLength(1)
    expect(logs[0]).toContain('Redis usage store is not answering')

    const server = await startRedisOn(port)
    cleanups.push(() => server.stop())
    await vi.waitFor(async () => expect((await call()).status).toBe(200), {
      timeout: 15_000,
      interval: 200,
    })
    expect(logs).toHaveLength(2)
    expect(logs[1]).toContain('answering again')
  })
})

/** A Redis of the test's own on a chosen port (the one the gateway was told about before it existed). */
async function startRedisOn(port: number) {
  const { spawn } = await import('node:child_process')
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  return {
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    },
  }
}
