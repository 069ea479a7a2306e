import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashKey } from '../../src/index'
import {
  createKey,
  createPostgresLedger,
  getKey,
  KeyAdminError,
  listKeys,
  migrate,
  revokeKey,
  updateKey,
} from '../../src/postgres/index'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

let database: TestDatabase
let options: { client: TestDatabase['pool']; schema: string }
beforeAll(async () => {
  database = await createTestDatabase('key_admin')
  options = { client: database.pool, schema: 'admin' }
  await migrate(options)
})
afterAll(() => database.drop())

describe('key administration functions', () => {
  it('creates a key whose secret is returned once and stored only as its SHA-256', async () => {
    const { key, stored } = await createKey(options, {
      name: 'team-a',
      groups: ['gpt'],
      quotaTokens: 1_000_000,
      limits: { requestsPerMinute: 60, tokensPerDay: 50_000 },
      expiresAt: '2031-01-01T00:00:00Z',
    })
    expect(key).toMatch(/^sk-mg-[a-z0-9]{12}-[A-Za-z0-9]{48}$/)
    expect(stored).toMatchObject({
      id: `key_${stored.publicId}`,
      display: `sk-mg-${stored.publicId}-…`,
      name: 'team-a',
      groups: ['gpt'],
      quotaTokens: 1_000_000,
      limits: { requestsPerMinute: 60, tokensPerDay: 50_000 },
      expiresAt: new Date('2031-01-01T00:00:00Z'),
      revokedAt: undefined,
    })
    expect(key.startsWith(`sk-mg-${stored.publicId}-`)).toBe(true)

    // Every column of every row, as text: neither the key nor its secret part is anywhere.
    const { rows } = await database.pool.query<{ row: string }>(
      'SELECT t::text AS row FROM admin.mg_api_keys t',
    )
    const dump = rows.map((row) => row.row).join('\n')
    const secret = key.slice(`sk-mg-${stored.publicId}-`.length)
    expect(dump).not.toContain(key)
    expect(dump).not.toContain(secret)
    expect(dump).not.toContain(secret.slice(0, 16))
    expect(dump).toContain(await hashKey(key))
  })

  it('takes a chosen id, and refuses a taken one and bad input with KeyAdminError', async () => {
    const { stored } = await createKey(options, { id: 'team-b', name: 'Team B' })
    expect(stored.id).toBe('team-b')
    await expect(createKey(options, { id: 'team-b' })).rejects.toThrow(/id "team-b" exists/)
    await expect(createKey(options, { quotaTokens: -1 })).rejects.toBeInstanceOf(KeyAdminError)
    await expect(createKey(options, { limits: { requestsPerSecond: 5 } as never })).rejects.toThrow(
      /limits/,
    )
    await expect(createKey(options, { expiresAt: 'tomorrow' })).rejects.toThrow(/expiresAt/)
  })

  it('updates fields, merges limits, and clears with null', async () => {
    const { stored } = await createKey(options, {
      name: 'updatable',
      groups: ['a'],
      quotaTokens: 10,
      limits: { requestsPerMinute: 5, concurrency: 2 },
    })
    const updated = await updateKey(options, stored.id, {
      name: 'renamed',
      groups: null,
      quotaTokens: null,
      limits: { requestsPerMinute: null, tokensPerMonth: 900 },
      expiresAt: new Date('2032-02-02T00:00:00Z'),
    })
    expect(updated).toMatchObject({
      name: 'renamed',
      groups: undefined,
      quotaTokens: undefined,
      limits: { concurrency: 2, tokensPerMonth: 900 },
      expiresAt: new Date('2032-02-02T00:00:00Z'),
    })
    expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(stored.updatedAt.getTime())
    expect((await updateKey(options, stored.id, { expiresAt: null }))!.expiresAt).toBeUndefined()
    expect(await updateKey(options, 'no-such-key', { name: 'x' })).toBeUndefined()
  })

  it('revokes once: a second revoke keeps the first time; lists hide revoked keys unless asked', async () => {
    const { stored } = await createKey(options, { name: 'to-revoke' })
    const first = await revokeKey(options, stored.id)
    expect(first!.revokedAt).toBeInstanceOf(Date)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = await revokeKey(options, stored.id)
    expect(second!.revokedAt).toEqual(first!.revokedAt)
    expect(await revokeKey(options, 'no-such-key')).toBeUndefined()

    const active = await listKeys(options)
    const all = await listKeys(options, { includeRevoked: true })
    expect(active.map((key) => key.id)).not.toContain(stored.id)
    expect(all.map((key) => key.id)).toContain(stored.id)
    expect(all.length).toBe(active.length + 1)
    expect((await getKey(options, stored.id))!.revokedAt).toEqual(first!.revokedAt)
  })

  it('sends JSON as text cast to jsonb, which every driver passes through unchanged', async () => {
    // A driver that types a `$n::jsonb` parameter (postgres.js) JSON-encodes a string value a
    // second time: the row would hold a JSON string instead of the object.
    const texts: string[] = []
    const recording = {
      client: {
        query: (text: string, params?: unknown[]) => {
          texts.push(text)
          return database.pool.query(text, params)
        },
      },
      schema: 'admin',
    }
    const { stored } = await createKey(recording, { groups: ['a'], limits: { concurrency: 1 } })
    await updateKey(recording, stored.id, { groups: ['b'], limits: { concurrency: 2 } })
    const ledger = createPostgresLedger(recording)
    ledger.record({
      requestId: 'json-check',
      keyId: stored.id,
      groupId: 'b',
      providerId: 'b#0',
      model: 'm',
      upstreamModel: 'm',
      route: 'chat.completions',
      stream: false,
      usage: undefined,
      outcome: 'ok',
      status: 200,
      startedAt: Date.now(),
      durationMs: 1,
    })
    await ledger.close()
    expect(ledger.stats().written).toBe(1)
    expect(texts.filter((text) => /\$\d+::jsonb/.test(text))).toEqual([])
    expect(texts.filter((text) => /\$\d+::text::jsonb/.test(text))).toHaveLength(3)
  })
})
