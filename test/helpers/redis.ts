import { execFileSync } from 'node:child_process'
import { createClient, type RedisClientType } from 'redis'
import type { RedisScriptClient } from '../../src/redis/index'

/** The machine's Redis, shared with other test runs: every test uses its own key prefix. */
export const redisUrl = 'redis://127.0.0.1:6379'

/** A connected node-redis client; the tests' real driver. */
export type TestRedis = RedisClientType

/** The two-method client the meter takes, over node-redis (as the README shows it). */
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
