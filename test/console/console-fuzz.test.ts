import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { prototypeNames } from '../fuzz/mutations'
import { adminToken, ConsoleClient, consoleGateway, demoKey, origin } from './console-setup'

/**
 * Property-based tests of every console route that takes client input: sign-in bodies, key
 * create and edit bodies, usage queries, key ids in paths and cookies. Whatever arrives, the answer
 * is JSON with a 4xx and a message (or a 2xx), never a 5xx, a stack trace, or a crash.
 */
const runs = Number(process.env['FUZZ_RUNS'] ?? 80)
const seed = Number(process.env['FUZZ_SEED'] ?? 20261127)

const anyJson = fc.jsonValue({ maxDepth: 4 })
const fieldNames = [
  'name',
  'groups',
  'quotaTokens',
  'limits',
  'expiresAt',
  'secret',
  ...prototypeNames,
]
const limitNames = [
  'requestsPerMinute',
  'tokensPerDay',
  'tokensPerMonth',
  'concurrency',
  'quota',
  '__proto__',
]
const hostileValue = fc.oneof(
  anyJson,
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    -1,
    0,
    2 ** 53,
    Number.MAX_VALUE,
    null,
    '',
    'x'.repeat(300),
    ['chat'],
    ['nope'],
    '2099-01-01T00:00:00Z',
  ),
  fc.dictionary(
    fc.constantFrom(...limitNames),
    fc.oneof(fc.integer(), fc.constant(null), fc.string()),
  ),
)
const keyBody = fc.dictionary(fc.constantFrom(...fieldNames), hostileValue, { maxKeys: 5 })

async function expectClean(response: { status: number; data: Record<string, unknown> }) {
  expect(response.status).toBeLessThan(500)
  if (response.status >= 400) {
    const message = (response.data.error as { message?: unknown } | undefined)?.message
    expect(typeof message).toBe('string')
    expect(message as string).not.toMatch(/\n\s+at /)
  }
}

describe('console routes under generated input', () => {
  it('key create and edit bodies get a 2xx or a clear 4xx', async () => {
    const { app } = consoleGateway()
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const created = await client.call('POST', '/keys', { name: 'target' })
    const id = (created.data.row as { id: string }).id
    await fc.assert(
      fc.asyncProperty(keyBody, fc.boolean(), async (body, edit) => {
        await expectClean(
          await client.call(edit ? 'PATCH' : 'POST', edit ? `/keys/${id}` : '/keys', body),
        )
      }),
      { numRuns: runs, seed },
    )
  })

  it('raw bodies of any shape and type, sign-in included', async () => {
    const { app } = consoleGateway({ console: { clientAddress: () => `${Math.random()}` } })
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const raw = fc.oneof(
      fc.string(),
      anyJson.map((value) => JSON.stringify(value)),
      fc.constantFrom(
        '{"secret":',
        '[]',
        'null',
        '{"__proto__":{"secret":"x"}}',
        '\u0000',
        '{"secret":"sk-\u0000"}',
      ),
    )
    await fc.assert(
      fc.asyncProperty(
        raw,
        fc.constantFrom('/session', '/keys', '/keys/x/revoke'),
        async (text, path) => {
          const response = await app(
            new Request(`${origin}/console/api${path}`, {
              method: 'POST',
              headers: {
                origin,
                'content-type': 'application/json',
                'x-csrf-token': client.csrf,
                cookie: `mg_console=${client.cookies.get('mg_console')}`,
              },
              body: text,
            }),
          )
          await expectClean({
            status: response.status,
            data: (await response.json()) as Record<string, unknown>,
          })
        },
      ),
      { numRuns: runs, seed },
    )
  })

  it('usage queries, key ids in paths and cookies', async () => {
    const { app } = consoleGateway()
    const admin = new ConsoleClient(app)
    await admin.signIn(adminToken)
    const holder = new ConsoleClient(app)
    await holder.signIn(demoKey)
    const day = fc.oneof(
      fc
        .date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10)),
      fc.string({ maxLength: 12 }),
    )
    await fc.assert(
      fc.asyncProperty(
        day,
        day,
        fc.option(
          fc.oneof(fc.string(), fc.constantFrom('key-demo', 'key-other', ...prototypeNames)),
        ),
        fc.boolean(),
        fc.string({ maxLength: 40 }),
        async (since, until, key, asHolder, pathId) => {
          const client = asHolder ? holder : admin
          const query = new URLSearchParams({ since, until, ...(key === null ? {} : { key }) })
          await expectClean(await client.call('GET', `/usage?${query}`))
          await expectClean(
            await client.call('PATCH', `/keys/${encodeURIComponent(pathId)}`, { name: 'x' }),
          )
        },
      ),
      { numRuns: runs, seed },
    )
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (cookie) => {
        const response = await app(
          new Request(`${origin}/console/api/keys`, {
            headers: { cookie: `mg_console=${cookie}; mg_console_csrf=${cookie}` },
          }),
        )
        expect(response.status).toBe(401)
      }),
      { numRuns: runs, seed },
    )
  })
})
