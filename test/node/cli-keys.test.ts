import OpenAI, { AuthenticationError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashKey } from '../../src/index'
import { runCli, runCliJson, serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

let database: TestDatabase
let db: string[]
const served: ServedCli[] = []
// Each test spawns CLI processes (1–3 s each on two loaded cores), hence the longer budget.
beforeAll(async () => {
  database = await createTestDatabase('cli_keys')
  db = ['--database', database.url, '--schema', 'cli']
})
afterAll(async () => {
  await Promise.all(served.map((gateway) => gateway.stop('SIGKILL')))
  await database.drop()
})

const configKey = 'sk-config-only-0123456789abcdefABCDE'
const config = {
  groups: [
    { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
    { id: 'other', protocol: 'openai', models: ['other-echo'], upstreams: [{ provider: 'mock' }] },
  ],
  keys: [{ key: configKey, id: 'config-key' }],
  state: { postgres: '${MG_TEST_DATABASE_URL}', schema: 'cli', keyCache: { ttlMs: 60_000 } },
}

describe('model-gateway migrate', { timeout: 60_000 }, () => {
  it('applies the schema once; a second run reports it up to date', async () => {
    expect(await runCliJson(['migrate', ...db])).toEqual({
      version: 8,
      applied: [
        { version: 1, name: 'api keys, usage ledger and daily rollup' },
        { version: 2, name: 'upstream attempts of a request that made more than one' },
        {
          version: 3,
          name: 'token categories, cost and price of each request; key budgets in money',
        },
        { version: 4, name: 'teams; the team of keys and ledger rows; end users of ledger rows' },
        { version: 5, name: 'the kind of a ledger row: tool for an MCP tool call' },
        { version: 6, name: 'response cache hits and the money they saved' },
        {
          version: 7,
          name: 'ledger indexes for the budgets of teams, the organisation and end users',
        },
        { version: 8, name: 'the daily rollup per routing group' },
      ],
    })
    expect(await runCliJson(['migrate', ...db])).toEqual({ version: 8, applied: [] })
    const text = await runCli(['migrate', ...db])
    expect(text.stdout).toBe('The schema is up to date (version 8).\n')
  })
})

describe('model-gateway keys', { timeout: 60_000 }, () => {
  it('creates, lists, updates, reports and revokes keys, for scripts (--json) and people', async () => {
    const created = await runCliJson([
      'keys',
      'create',
      ...db,
      '--name',
      'team-a',
      '--groups',
      'demo',
      '--quota-tokens',
      '5000',
      '--requests-per-minute',
      '60',
      '--tokens-per-day',
      '20000',
      '--expires-at',
      '2031-01-01',
    ])
    expect(created).toMatchObject({
      key: expect.stringMatching(/^sk-mg-[a-z0-9]{12}-[A-Za-z0-9]{48}$/),
      id: `key_${created.publicId}`,
      name: 'team-a',
      groups: ['demo'],
      quotaTokens: 5000,
      limits: { requestsPerMinute: 60, tokensPerDay: 20000 },
      expiresAt: '2031-01-01T00:00:00.000Z',
      revokedAt: null,
    })
    // The table holds the digest, never the key.
    const stored = await database.pool.query('SELECT t::text AS row FROM cli.mg_api_keys t')
    expect(stored.rows[0].row).not.toContain(created.key.slice(19))
    expect(stored.rows[0].row).toContain(await hashKey(created.key))

    const listed = await runCliJson(['keys', 'list', ...db])
    expect(listed).toHaveLength(1)
    expect(listed[0]).not.toHaveProperty('key')
    expect(listed[0]).toMatchObject({ id: created.id, display: `sk-mg-${created.publicId}-…` })

    const updated = await runCliJson([
      'keys',
      'update',
      created.id,
      ...db,
      '--requests-per-minute',
      'none',
      '--concurrency',
      '4',
      '--groups',
      'demo,other',
      '--expires-at',
      'never',
    ])
    expect(updated).toMatchObject({
      limits: { tokensPerDay: 20000, concurrency: 4 },
      groups: ['demo', 'other'],
      expiresAt: null,
    })

    const usage = await runCliJson(['keys', 'usage', created.id, ...db])
    expect(usage).toMatchObject({ keyId: created.id, quotaTokens: 5000, days: [] })
    expect(usage.lifetime.totalTokens).toBe(0)

    const table = await runCli(['keys', 'list', ...db])
    expect(table.stdout).toMatch(
      /^ID\s+NAME\s+KEY\s+TEAM\s+GROUPS\s+QUOTA\s+LIMITS\s+BUDGET\s+EXPIRES\s+STATUS/,
    )
    expect(table.stdout).toContain('concurrent=4 day=20000')
    expect(table.stdout).not.toContain(created.key)

    const revoked = await runCliJson(['keys', 'revoke', created.id, ...db])
    expect(revoked.revokedAt).toEqual(expect.any(String))
    expect(await runCliJson(['keys', 'list', ...db])).toEqual([])
    expect(await runCliJson(['keys', 'list', '--all', ...db])).toHaveLength(1)
  })

  it('prints a new key once, for people, with a warning to store it', async () => {
    const result = await runCli(['keys', 'create', ...db, '--name', 'human'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /Created key key_[a-z0-9]{12} \(human\):\n\n {2}sk-mg-[a-z0-9]{12}-\w{48}\n/,
    )
    expect(result.stdout).toContain('This is the only time the key is shown')
  })

  it('exits 1 for an unknown id and 2 for a bad command line, naming the problem', async () => {
    const missing = await runCli(['keys', 'revoke', 'nope', ...db])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no key with id "nope"')
    const badNumber = await runCli(['keys', 'create', ...db, '--quota-tokens', 'lots'])
    expect(badNumber.code).toBe(2)
    expect(badNumber.stderr).toContain('--quota-tokens takes a whole number')
    const unknownFlag = await runCli(['keys', 'create', ...db, '--rpm', '5'])
    expect(unknownFlag.code).toBe(2)
    expect(unknownFlag.stderr).toMatch(
      /Unknown option '--rpm'[\s\S]*See "model-gateway keys --help" for the options/,
    )
    const noDatabase = await runCli(['keys', 'list'], { DATABASE_URL: '' })
    expect(noDatabase.code).toBe(2)
    expect(noDatabase.stderr).toContain('--database <url>, a config with state.postgres')
    const unknownGroup = await runCli(
      ['keys', 'create', '--config', writeConfig(config), '--groups', 'nope'],
      { MG_TEST_DATABASE_URL: database.url },
    )
    expect(unknownGroup.code).toBe(2)
    expect(unknownGroup.stderr).toContain('unknown group "nope"')
    // Without a config the names cannot be checked: the key is created, with a warning.
    const unchecked = await runCli(['keys', 'create', ...db, '--groups', 'nope', '--json'])
    expect(unchecked.code).toBe(0)
    expect(JSON.parse(unchecked.stdout)).toMatchObject({ groups: ['nope'] })
    expect(unchecked.stderr).toContain(
      'model-gateway: warning: the group names ("nope") are not checked without --config',
    )
  })
})

describe('two gateway instances sharing the database', { timeout: 60_000 }, () => {
  it('serve CLI-created keys beside config keys, and both refuse a key revoked by the CLI', async () => {
    const path = writeConfig(config)
    const env = { MG_TEST_DATABASE_URL: database.url }
    const instances = await Promise.all([
      serveCli(['--config', path, '--port', '0'], env),
      serveCli(['--config', path, '--port', '0'], env),
    ])
    served.push(...instances)
    const created = await runCliJson(['keys', 'create', '--config', path, '--name', 'sdk'], env)
    const client = (url: string, apiKey: string) =>
      new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 })
    const messages = [{ role: 'user' as const, content: 'Hello, shared state' }]

    for (const instance of instances) {
      for (const apiKey of [created.key, configKey]) {
        const answer = await client(instance.url, apiKey).chat.completions.create({
          model: 'demo-echo',
          messages,
        })
        expect(answer.choices[0]?.message.content).toBe('You said: Hello, shared state')
      }
    }

    const revoke = await runCli(['keys', 'revoke', created.id, '--config', path], env)
    expect(revoke.code).toBe(0)
    const revokedAt = performance.now()
    // A one-minute cache TTL: a refusal within the test is the notification's doing.
    const refusedAfter = await Promise.all(
      instances.map(async (instance) => {
        for (;;) {
          const error = await client(instance.url, created.key)
            .models.list()
            .then(
              () => undefined,
              (caught: unknown) => caught,
            )
          if (error instanceof AuthenticationError) return performance.now() - revokedAt
          if (performance.now() - revokedAt > 5000) throw new Error('still accepted after 5 s')
          await new Promise((resolve) => setTimeout(resolve, 2))
        }
      }),
    )
    console.log(
      `revocation by the CLI refused on both instances within ${Math.max(...refusedAfter).toFixed(1)} ms of the CLI's exit`,
    )
    expect(Math.max(...refusedAfter)).toBeLessThan(2000)
    const models = await client(instances[0]!.url, configKey).models.list()
    expect(models.data.map((model) => model.id)).toContain('demo-echo')
  })
})
