import { execFileSync } from 'node:child_process'
import { createClient, type RedisClientType } from 'redis'
import type { RedisScriptClient } from '../../src/redis/index'

/** The machine's Redis, shared with other test runs: every test uses its own key prefix. */
export const redisUrl = 'redis://127.0.0.1:6379'

/** A connected node-redis client; the tests' real driver. */
export type TestRedis = RedisClientType

/** The two-method client the meter takes, over node-redis (as docs/shared-state.md shows it). */
export function scriptClient(redis: TestRedis): RedisScriptClient {
  return {
    eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
    evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
  }
}

/**
 * Connects to the machine's Redis, starting it first when it is down (with the command the CI
 * machines use), so a test never depends on someone having started it.
 */
export async function connectRedis(url = redisUrl): Promise<TestRedis> {
  if (!(await answers(url))) {
    execFileSync('redis-server', [
      '--daemonize',
      'yes',
      '--bind',
      '127.0.0.1',
      '-::1',
      '--port',
      '6379',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      '/var/lib/redis',
      '--logfile',
      '/var/log/redis/ci.log',
    ])
    for (let attempt = 0; attempt < 50 && !(await answers(url)); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  const client = createClient({ url, disableOfflineQueue: true }) as TestRedis
  client.on('error', () => undefined)
  await client.connect()
  return client
}

async function answers(url: string): Promise<boolean> {
  const probe = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1000 } })
  probe.on('error', () => undefined)
  try {
    await probe.connect()
    await probe.ping()
    return true
  } catch {
    return false
  } finally {
    if (probe.isOpen) probe.destroy()
  }
}

/** A key prefix no other test, run or helper uses. */
export function uniquePrefix(name: string): string {
  return `mgtest:${name}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`
}

/** Deletes every key under a prefix: a test's "flush", which leaves other tests' keys alone. */
export async function deletePrefix(redis: TestRedis, prefix: string): Promise<number> {
  let deleted = 0
  for await (const batch of redis.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
    const keys = Array.isArray(batch) ? batch : [batch]
    if (keys.length > 0) deleted += await redis.del(keys)
  }
  return deleted
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        resolve(typeof address === 'object' && address !== null ? address.port : 0),
      )
    })
  })
}

/**
 * A Redis server of the test's own, on a free port, that the test may kill and start again (the
 * machine's shared Redis must never be stopped: other runs use it). No persistence, so a restart
 * comes back empty, as a Redis without persistence does.
 */
export async function startPrivateRedis() {
  const { spawn } = await import('node:child_process')
  const port = await freePort()
  const url = `redis://127.0.0.1:${port}`
  let child: ReturnType<typeof spawn> | undefined
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    )
    for (let attempt = 0; attempt < 100 && !(await answers(url)); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const stop = async () => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGKILL')
    await exited
  }
  await start()
  return { url, port, start, stop }
}
