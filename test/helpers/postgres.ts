import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import pg from 'pg'

const host = '127.0.0.1'
const port = 5432

/** The machine's PostgreSQL (trust auth), as the admin connection string for a database. */
function url(database: string, user: string): string {
  return `postgres://${user}@${host}:${port}/${database}`
}

let adminUser: string | undefined

/**
 * Connects to the machine's PostgreSQL as user `postgres` (or `root`), starting the cluster when
 * it is down, as CI's fresh machines need.
 */
async function admin(): Promise<pg.Client> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    for (const user of adminUser === undefined ? ['postgres', 'root'] : [adminUser]) {
      const client = new pg.Client({ connectionString: url('postgres', user) })
      try {
        await client.connect()
        adminUser = user
        return client
      } catch (error) {
        await client.end().catch(() => undefined)
        const code = (error as { code?: string }).code
        if (code !== 'ECONNREFUSED' && code !== '57P03' && code !== '28000') throw error
      }
    }
    if (attempt === 0) startCluster()
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`PostgreSQL does not answer on ${host}:${port}.`)
}

function startCluster(): void {
  const version = readdirSync('/etc/postgresql')[0]
  if (version === undefined) throw new Error('No PostgreSQL cluster in /etc/postgresql.')
  try {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], {
      stdio: 'ignore',
    })
  } catch {
    // Another test file may have started it meanwhile; the connection loop decides.
  }
}

/** A database of its own for one test file: other helpers' tests share the server. */
export type TestDatabase = {
  name: string
  url: string
  /** A pool on the database (closed by `drop`). */
  pool: pg.Pool
  /** Drops the database, ending every connection still on it. */
  drop(): Promise<void>
}

/** Creates a fresh database named after the test file, with a random suffix. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `mg_test_${label.replace(/[^a-z0-9]/g, '_')}_${Math.random().toString(36).slice(2, 10)}`
  const client = await admin()
  try {
    await client.query(`CREATE DATABASE "${name}"`)
  } finally {
    await client.end()
  }
  const databaseUrl = url(name, adminUser!)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 })
  pool.on('error', () => undefined)
  return {
    name,
    url: databaseUrl,
    pool,
    async drop() {
      await pool.end().catch(() => undefined)
      const dropper = await admin()
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      } finally {
        await dropper.end()
      }
    },
  }
}
