import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConsoleClient } from '../console/console-setup'
import { runCli, runCliJson, serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { repoRoot } from '../helpers/spawn-runtime'

const demoConfig = join(repoRoot, 'examples/gateway.config.json')
const served: ServedCli[] = []
let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase('cli_console')
})
afterAll(async () => {
  await Promise.all(served.map((gateway) => gateway.stop('SIGKILL')))
  await database.drop()
})

/** The console's API over HTTP, as the page calls it. */
const overHttp = (url: string) => new ConsoleClient((request) => fetch(request), url)

type KeyRow = {
  id: string
  name: string
  usage: { today: { requests: number } | null }
  status: string
}

describe('the CLI serves the console', { timeout: 60_000 }, () => {
  it('npm start: prints the console address and a made-up admin token that signs in, and keys made there work', async () => {
    const gateway = await serveCli(['--config', demoConfig, '--port', '0', '--print-demo'], {
      CONSOLE_ADMIN_TOKEN: '',
    })
    served.push(gateway)
    await vi.waitFor(() => expect(gateway.output()).toContain('Sign in with the admin token'))
    const output = gateway.output()
    expect(output).toContain(`model-gateway console on ${gateway.url}/console/`)
    expect(output).toContain(`Console: ${gateway.url}/console/`)
    const token = /admin token (mgc-demo-[A-Za-z0-9_-]{24}) /.exec(output)?.[1]
    expect(token).toBeDefined()

    const client = overHttp(gateway.url)
    await client.signIn(token!)
    const created = await client.call('POST', '/keys', { name: 'newcomer' })
    expect(created.status).toBe(200)
    const openai = new OpenAI({ apiKey: created.data.key as string, baseURL: `${gateway.url}/v1` })
    const completion = await openai.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'hello console' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: hello console')
    const keys = (await client.call('GET', '/keys')).data.keys as KeyRow[]
    expect(keys.find((key) => key.name === 'newcomer')?.usage.today?.requests).toBe(1)
    // Without a database the key lives in this process, and the page says so.
    expect((await client.call('GET', '/keys')).data.store).toBe('memory')
  })

  it('reads the admin token from the environment, and refuses to start without it', async () => {
    const gateway = await serveCli(['--config', demoConfig, '--port', '0'], {
      CONSOLE_ADMIN_TOKEN: 'operator-chosen-token-0123456789',
    })
    served.push(gateway)
    await overHttp(gateway.url).signIn('operator-chosen-token-0123456789')
    expect(gateway.output()).not.toContain('operator-chosen-token')
    expect(gateway.output()).toContain(`model-gateway console on ${gateway.url}/console/`)

    const env = { ...process.env }
    delete env.CONSOLE_ADMIN_TOKEN
    const refused = await runCli(
      ['--config', demoConfig, '--port', '0'],
      env as Record<string, string>,
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      'console.adminTokens[0]: environment variable CONSOLE_ADMIN_TOKEN is not set',
    )
  })

  it('with state.postgres: keys made in the console are database keys, usage comes from the ledger, revocation reaches the gateway', async () => {
    const path = writeConfig({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      state: { postgres: database.url, ledger: { flushIntervalMs: 50 } },
      console: { adminTokens: ['${CONSOLE_TOKEN}'], keyLogin: true },
    })
    const gateway = await serveCli(['--config', path, '--port', '0'], {
      CONSOLE_TOKEN: 'postgres-console-token-0123456789',
    })
    served.push(gateway)
    const client = overHttp(gateway.url)
    await client.signIn('postgres-console-token-0123456789')
    const created = await client.call('POST', '/keys', {
      name: 'db-key',
      limits: { tokensPerDay: 100_000 },
    })
    expect(created.status).toBe(200)
    const row = created.data.row as KeyRow
    const listed = await runCliJson<Array<{ id: string; name: string }>>([
      'keys',
      'list',
      '--database',
      database.url,
    ])
    expect(listed.map((key) => [key.id, key.name])).toEqual([[row.id, 'db-key']])

    const openai = new OpenAI({ apiKey: created.data.key as string, baseURL: `${gateway.url}/v1` })
    await openai.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'x' }],
    })
    await vi.waitFor(
      async () => {
        const keys = (await client.call('GET', '/keys')).data.keys as KeyRow[]
        expect(keys[0]?.usage.today?.requests).toBe(1)
      },
      { timeout: 5000 },
    )
    const usage = await client.call('GET', `/usage?key=${row.id}`)
    expect(usage.data.source).toBe('ledger')
    expect((usage.data.report as { totals: { requests: number } }).totals.requests).toBe(1)
    const lastUsed = (
      (await client.call('GET', '/keys')).data.keys as Array<{ lastUsedAt: number }>
    )[0]!.lastUsedAt
    expect(Date.now() - lastUsed).toBeLessThan(60_000)

    await client.call('POST', `/keys/${row.id}/revoke`, {})
    await vi.waitFor(
      async () =>
        expect(
          openai.chat.completions.create({
            model: 'demo-echo',
            messages: [{ role: 'user', content: 'x' }],
          }),
        ).rejects.toMatchObject({ status: 401 }),
      { timeout: 6000 },
    )
  })
})
