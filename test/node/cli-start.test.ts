import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli, serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { freePort } from '../helpers/redis'
import { repoRoot } from '../helpers/spawn-runtime'

const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string
}

let database: TestDatabase
const served: ServedCli[] = []
beforeAll(async () => {
  database = await createTestDatabase('cli_start')
})
afterAll(async () => {
  await Promise.all(served.map((gateway) => gateway.stop('SIGKILL')))
  await database.drop()
})

/** The output a started CLI printed before its address line. */
function beforeListening(output: string): string {
  return output.slice(0, output.indexOf('model-gateway listening on'))
}

describe('model-gateway --version', () => {
  it('prints the package version, with --version and -v', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await runCli([flag])
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' })
    }
    expect((await runCli(['--help'])).stdout).toContain('model-gateway --version')
  })
})

describe('what the CLI prints when it starts', { timeout: 60_000 }, () => {
  it('names the version, each group with its upstreams and models, the keys masked, and the state', async () => {
    const gateway = await serveCli(
      ['--config', join(repoRoot, 'examples/gateway.config.json'), '--port', '0'],
      { CONSOLE_ADMIN_TOKEN: 'console-admin-token-0123456789' },
    )
    served.push(gateway)
    const text = beforeListening(gateway.output())
    expect(text).toContain(
      `model-gateway ${version} (Node ${process.version}), config ${join(repoRoot, 'examples/gateway.config.json')}\n` +
        '  group demo (openai → mock): demo-echo, fast → demo-echo\n' +
        '  group demo-responses (openai → mock): demo-responses\n' +
        '  keys: 1 in the config (demo sk-…6789)\n' +
        '  console: /console (1 admin token, 0 viewer tokens, key holders may not sign in)\n' +
        '  state: this process only (no "state"): usage and limits are not shared, a restart forgets usage\n',
    )
    // Without --print-demo, the key is never printed whole.
    expect(gateway.output()).not.toContain('sk-demo-local-only-0123456789')
  })

  it('warns loudly when Redis does not answer, and shows Postgres schema version and prefix, with no secret', async () => {
    const redisPort = await freePort()
    const postgresUrl = database.url.replace('@', ':db-password-123@')
    const path = writeConfig({
      groups: [
        {
          id: 'gpt',
          protocol: 'openai',
          models: ['gpt-4o', { name: 'fast', upstreamModel: 'gpt-4o-mini' }],
          upstreams: [
            {
              baseUrl: 'https://proxy-user:proxy-pass@llm.internal.example/v1?token=url-token',
              apiKey: 'sk-upstream-secret-0123456789abcdef',
            },
          ],
        },
      ],
      keys: [
        { key: 'sk-config-key-0123456789abcdefWXYZ', name: 'ops', limits: { tokensPerDay: 5 } },
      ],
      state: {
        redis: `redis://:redis-password-456@127.0.0.1:${redisPort}`,
        postgres: '${MG_START_DATABASE_URL}',
        prefix: 'startcheck',
      },
    })
    const gateway = await serveCli(['--config', path, '--port', '0'], {
      MG_START_DATABASE_URL: postgresUrl,
    })
    served.push(gateway)
    const output = gateway.output()
    const text = beforeListening(output)
    expect(text).toContain(
      '  group gpt (openai → llm.internal.example): gpt-4o, fast → gpt-4o-mini\n',
    )
    expect(text).toContain("  keys: 1 in the config (ops sk-…WXYZ), and the database's\n")
    expect(text).toContain(
      `  state: Redis redis://:****@127.0.0.1:${redisPort} NOT ANSWERING; PostgreSQL ${database.url.replace('@', ':****@')} at schema version 8; prefix startcheck\n`,
    )
    // On stderr, which may reach the test after the address line on stdout.
    await vi.waitFor(() =>
      expect(gateway.output()).toContain(
        `model-gateway: WARNING: Redis at redis://:****@127.0.0.1:${redisPort} does not answer; serving anyway and retrying. Keys with token or money budgets are refused (503)`,
      ),
    )
    for (const secret of [
      'db-password-123',
      'redis-password-456',
      'proxy-pass',
      'url-token',
      'sk-upstream-secret-0123456789abcdef',
      'sk-config-key-0123456789abcdefWXYZ',
    ]) {
      expect(gateway.output()).not.toContain(secret)
    }
  })

  it('says Redis answers when it does', async () => {
    const path = writeConfig({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [{ key: 'sk-config-key-0123456789abcdefWXYZ' }],
      state: { redis: 'redis://127.0.0.1:6379', prefix: `start${process.pid}` },
    })
    const gateway = await serveCli(['--config', path, '--port', '0'])
    served.push(gateway)
    const output = gateway.output()
    expect(beforeListening(output)).toContain(
      `  state: Redis redis://127.0.0.1:6379 answering (single node 127.0.0.1:6379); prefix start${process.pid}\n`,
    )
    expect(output).not.toContain('WARNING')
  })

  it('does not start when PostgreSQL does not answer, naming it without its password', async () => {
    const port = await freePort()
    const result = await runCli([
      '--config',
      writeConfig({
        groups: [
          {
            id: 'demo',
            protocol: 'openai',
            models: ['demo-echo'],
            upstreams: [{ provider: 'mock' }],
          },
        ],
        keys: [],
        state: { postgres: `postgres://gateway:pg-secret@127.0.0.1:${port}/gateway` },
      }),
      '--port',
      '0',
    ])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      `model-gateway: PostgreSQL at postgres://gateway:****@127.0.0.1:${port}/gateway does not answer: connect ECONNREFUSED 127.0.0.1:${port} (ECONNREFUSED)\n`,
    )
  })
})
