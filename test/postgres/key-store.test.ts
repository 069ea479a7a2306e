import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { AuthenticationError, InternalServerError } from 'openai'
import { createGateway, GatewayError } from '../../src/index'
import {
  createKey,
  createPgListener,
  createPostgresKeyStore,
  createPostgresLedger,
  migrate,
  revokeKey,
  updateKey,
  type PostgresClient,
} from '../../src/postgres/index'
import { openAIClient } from '../helpers/gateway'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { startTcpProxy } from '../helpers/tcp-proxy'

let database: TestDatabase
const schema = 'keys'
beforeAll(async () => {
  database = await createTestDatabase('key_store')
  await migrate({ client: database.pool, schema })
})
afterAll(() => database.drop())

/** A client that counts the statements it sends, to prove what the cache saves. */
function countingClient(client: PostgresClient) {
  const counter = {
    queries: 0,
    query: (text: string, params?: unknown[]) => {
      counter.queries += 1
      return client.query(text, params)
    },
  }
  return counter
}

/** A second "instance": its own pool, so its notifications arrive on its own connection. */
function openPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: database.url, max: 4 })
  pool.on('error', () => undefined)
  return pool
}

describe('Postgres key store', () => {
  it('finds a key by its public id and compares the secret; other shapes cost no query', async () => {
    const client = countingClient(database.pool)
    const store = createPostgresKeyStore({ client, schema })
    const { key, stored } = await createKey(
      { client: database.pool, schema },
      { name: 'lookup', groups: ['gpt'], quotaTokens: 500, limits: { concurrency: 3 } },
    )
    expect(await store.lookup(key)).toEqual({
      id: stored.id,
      name: 'lookup',
      groups: ['gpt'],
      quota: { tokens: 500 },
      limits: { concurrency: 3 },
      disabled: false,
      expiresAt: undefined,
    })
    // Same public id, one wrong character in the secret: refused, from the cached digest.
    const wrong = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a')
    expect(await store.lookup(wrong)).toBeUndefined()
    expect(client.queries).toBe(1)
    expect(await store.lookup('sk-test-main-0123456789abcdefABCDEF')).toBeUndefined()
    expect(await store.lookup('sk-mg-short-secret')).toBeUndefined()
    expect(client.queries).toBe(1)
  })

  it('caches unknown ids too, and concurrent lookups of one id share one query', async () => {
    const client = countingClient(database.pool)
    const store = createPostgresKeyStore({ client, schema })
    const unknown = `sk-mg-zzzzzzzzzzzz-${'A'.repeat(48)}`
    await Promise.all(Array.from({ length: 20 }, () => store.lookup(unknown)))
    expect(await store.lookup(unknown)).toBeUndefined()
    expect(client.queries).toBe(1)

    const { key } = await createKey({ client: database.pool, schema }, { name: 'burst' })
    const records = await Promise.all(Array.from({ length: 50 }, () => store.lookup(key)))
    expect(records.every((record) => record?.name === 'burst')).toBe(true)
    expect(client.queries).toBe(2)
  })

  it('without a listener, a revoked key is refused once the cache TTL has passed', async () => {
    let clock = 1_000_000
    const store = createPostgresKeyStore({
      client: database.pool,
      schema,
      cacheTtlMs: 5000,
      now: () => clock,
    })
    const { key, stored } = await createKey({ client: database.pool, schema }, { name: 'ttl' })
    expect((await store.lookup(key))?.disabled).toBe(false)
    await revokeKey({ client: database.pool, schema }, stored.id)
    // Within the TTL the cached record still answers: that is the documented bound.
    clock += 4999
    expect((await store.lookup(key))?.disabled).toBe(false)
    clock += 1
    expect((await store.lookup(key))?.disabled).toBe(true)
  })

  it('revocation on one instance reaches another by NOTIFY, long before the cache TTL', async () => {
    const poolA = openPool()
    const poolB = openPool()
    // A one-minute TTL: only the notification can explain a refusal within the test.
    const instanceB = createPostgresKeyStore({
      client: poolB,
      schema,
      cacheTtlMs: 60_000,
      listener: createPgListener(poolB),
    })
    await instanceB.ready()
    const latencies: number[] = []
    try {
      for (let round = 0; round < 20; round += 1) {
        const { key, stored } = await createKey({ client: poolA, schema }, { name: `r${round}` })
        expect((await instanceB.lookup(key))?.disabled).toBe(false)
        await revokeKey({ client: poolA, schema }, stored.id)
        const revokedAt = performance.now()
        while ((await instanceB.lookup(key))?.disabled !== true) {
          if (performance.now() - revokedAt > 5000) throw new Error('not refused within 5 s')
          await new Promise((resolve) => setImmediate(resolve))
        }
        latencies.push(performance.now() - revokedAt)
      }
    } finally {
      await instanceB.close()
      await poolA.end()
      await poolB.end()
    }
    latencies.sort((a, b) => a - b)
    const p50 = latencies[10]!
    const max = latencies[19]!
    console.log(
      `revocation seen by the other instance: p50 ${p50.toFixed(2)} ms, max ${max.toFixed(2)} ms (20 revocations)`,
    )
    expect(max).toBeLessThan(1000)
  })

  it('updates reach the other instance the same way (limits, groups)', async () => {
    const pool = openPool()
    const store = createPostgresKeyStore({
      client: pool,
      schema,
      cacheTtlMs: 60_000,
      listener: createPgListener(pool),
    })
    await store.ready()
    try {
      const { key, stored } = await createKey({ client: database.pool, schema }, { name: 'up' })
      expect((await store.lookup(key))?.limits).toBeUndefined()
      await updateKey({ client: database.pool, schema }, stored.id, {
        limits: { requestsPerMinute: 7 },
        groups: ['demo'],
      })
      await vi.waitFor(
        async () => {
          const record = await store.lookup(key)
          expect(record?.limits).toEqual({ requestsPerMinute: 7 })
          expect(record?.groups).toEqual(['demo'])
        },
        { timeout: 2000, interval: 5 },
      )
    } finally {
      await store.close()
      await pool.end()
    }
  })

  it('stops caching while the listener is disconnected, and resumes after it reconnects', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 })
    const listenerPool = new pg.Pool({
      connectionString: database.url.replace(':5432/', `:${proxy.port}/`),
      max: 2,
    })
    listenerPool.on('error', () => undefined)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const store = createPostgresKeyStore({
      client: database.pool,
      schema,
      cacheTtlMs: 60_000,
      listener: createPgListener(listenerPool, { retryMs: 50 }),
    })
    try {
      await store.ready()
      expect(store.caching).toBe(true)
      const { key, stored } = await createKey({ client: database.pool, schema }, { name: 'cut' })
      expect((await store.lookup(key))?.disabled).toBe(false)

      proxy.cut()
      await vi.waitFor(() => expect(store.caching).toBe(false), { timeout: 2000 })
      expect(errors.mock.calls.flat().join(' ')).toMatch(/listener disconnected/)
      // The notification of this revocation is lost; the store reads Postgres instead.
      await revokeKey({ client: database.pool, schema }, stored.id)
      expect((await store.lookup(key))?.disabled).toBe(true)

      proxy.restore()
      await vi.waitFor(() => expect(store.caching).toBe(true), { timeout: 5000 })
      const other = await createKey({ client: database.pool, schema }, { name: 'after' })
      expect((await store.lookup(other.key))?.name).toBe('after')
      await revokeKey({ client: database.pool, schema }, other.stored.id)
      await vi.waitFor(async () => expect((await store.lookup(other.key))?.disabled).toBe(true), {
        timeout: 2000,
        interval: 5,
      })
    } finally {
      errors.mockRestore()
      await store.close()
      await listenerPool.end()
      await proxy.close()
    }
  })

  it('answers 503, never 401, while Postgres is unreachable', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 })
    const pool = new pg.Pool({
      connectionString: database.url.replace(':5432/', `:${proxy.port}/`),
      connectionTimeoutMillis: 1000,
    })
    pool.on('error', () => undefined)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const store = createPostgresKeyStore({ client: pool, schema })
    const { key } = await createKey({ client: database.pool, schema }, { name: 'outage' })
    try {
      proxy.cut()
      const failure = await store.lookup(key).catch((error: unknown) => error)
      expect(GatewayError.isInstance(failure)).toBe(true)
      expect(failure).toMatchObject({ code: 'overloaded', status: 503 })

      const gateway = createGateway({
        groups: [
          {
            id: 'demo',
            protocol: 'openai',
            models: ['demo-echo'],
            upstreams: [{ provider: 'mock' }],
          },
        ],
        keyStore: store,
      })
      const error = await openAIClient(gateway, key)
        .chat.completions.create({
          model: 'demo-echo',
          messages: [{ role: 'user', content: 'hi' }],
        })
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(InternalServerError)
      expect((error as InternalServerError).status).toBe(503)

      proxy.restore()
      expect((await store.lookup(key))?.name).toBe('outage')
    } finally {
      errors.mockRestore()
      await pool.end()
      await proxy.close()
    }
  })
})

describe('a gateway with config keys and database keys side by side', () => {
  it('serves both through the openai SDK, and refuses a revoked database key', async () => {
    const configKey = 'sk-config-key-0123456789abcdefABCDEF'
    const keyStore = createPostgresKeyStore({
      client: database.pool,
      schema,
      listener: createPgListener(database.pool),
    })
    await keyStore.ready()
    const usageLedger = createPostgresLedger({ client: database.pool, schema })
    const gateway = createGateway({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [{ key: configKey, id: 'from-config' }],
      keyStore,
      usageLedger,
    })
    const { key, stored } = await createKey({ client: database.pool, schema }, { name: 'sdk' })
    const messages = [{ role: 'user' as const, content: 'Hello from the database' }]

    const fromDatabase = await openAIClient(gateway, key).chat.completions.create({
      model: 'demo-echo',
      messages,
    })
    expect(fromDatabase.choices[0]?.message.content).toBe('You said: Hello from the database')
    const stream = await openAIClient(gateway, configKey).chat.completions.create({
      model: 'demo-echo',
      messages,
      stream: true,
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('You said: Hello from the database')

    await revokeKey({ client: database.pool, schema }, stored.id)
    // Until the revocation reaches this instance (NOTIFY, or the cache TTL) the key still works;
    // how many calls get through first depends on timing, so they are counted, not assumed.
    let servedBeforeRevocation = 0
    await vi.waitFor(
      async () => {
        const error = await openAIClient(gateway, key)
          .chat.completions.create({ model: 'demo-echo', messages })
          .then(() => void (servedBeforeRevocation += 1))
          .catch((caught: unknown) => caught)
        expect(error).toBeInstanceOf(AuthenticationError)
      },
      { timeout: 2000, interval: 10 },
    )
    await gateway.close()
    const { rows } = await database.pool.query<{ key_id: string }>(
      `SELECT key_id FROM keys.mg_usage_ledger ORDER BY started_at`,
    )
    expect(rows.map((row) => row.key_id)).toEqual([
      stored.id,
      'from-config',
      ...Array.from({ length: servedBeforeRevocation }, () => stored.id),
    ])
  })
})
