import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'

/**
 * Redis servers a test starts on loopback from the machine's `redis-server`, each in a temp dir
 * that `stop()` removes with the processes. Cluster nodes take ports 17001–17040 (bus +10000),
 * Sentinel primaries and replicas 16401–16440, sentinels 26401–26440: no other test uses them.
 */
export type RedisServers = {
  /** `redis://127.0.0.1:<port>` of each data node (cluster nodes, or primary then replicas). */
  urls: string[]
  /** Kills one server at once (SIGKILL: no goodbye to its replicas), by port. */
  kill(port: number): void
  /** Kills every server and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>
}

const serverBin = '/usr/bin/redis-server'

/** One command to a node, answered as a string (or rejected). */
export async function ask(port: number, ...command: string[]): Promise<string> {
  const client = createClient({
    url: `redis://127.0.0.1:${port}`,
    socket: { reconnectStrategy: false, connectTimeout: 1000 },
  })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return String(await client.sendCommand(command))
  } finally {
    client.destroy()
  }
}

/** Polls `check` every 100 ms until it returns true or `timeoutMs` passes (then throws `what`). */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    try {
      if (await check()) return
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function startServers(dir: string, argsOf: (port: number) => string[], ports: number[]) {
  const processes = new Map<number, ChildProcess>()
  for (const port of ports) {
    const child = spawn(serverBin, argsOf(port), { cwd: dir, stdio: 'ignore' })
    processes.set(port, child)
  }
  let stopped = false
  return {
    processes,
    kill(port: number) {
      processes.get(port)?.kill('SIGKILL')
    },
    async stop() {
      if (stopped) return
      stopped = true
      await Promise.all(
        [...processes.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve()
              child.once('exit', () => resolve())
              child.kill('SIGKILL')
            }),
        ),
      )
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const common = (port: number) => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--protected-mode',
  'no',
  '--logfile',
  `${port}.log`,
]

/**
 * A Redis Cluster of `masters` masters with one replica each, on `firstPort`… (within
 * 17001–17040), created with `redis-cli --cluster create`, ready when every node reports
 * `cluster_state:ok`. `cluster-node-timeout` is small (1000 ms) so failovers take seconds.
 */
export async function startCluster(firstPort: number, masters = 3): Promise<RedisServers> {
  const ports = Array.from({ length: masters * 2 }, (_, index) => firstPort + index)
  if (ports[0]! < 17001 || ports.at(-1)! > 17040) throw new Error('cluster ports are 17001–17040')
  const dir = mkdtempSync(join(tmpdir(), 'mg-cluster-'))
  const servers = startServers(
    dir,
    (port) => [
      ...common(port),
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      '1000',
      // A replica always takes over, however long it was out of touch (tests kill at will).
      '--cluster-replica-validity-factor',
      '0',
    ],
    ports,
  )
  try {
    for (const port of ports)
      await waitFor(`node ${port}`, async () => (await ask(port, 'PING')) === 'PONG')
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ])
    for (const port of ports) {
      await waitFor(`cluster state on ${port}`, async () =>
        (await ask(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      )
    }
  } catch (error) {
    await servers.stop()
    throw error
  }
  return { urls: ports.map((port) => `redis://127.0.0.1:${port}`), ...servers }
}

/**
 * A primary (`dataPort`) with two replicas (`dataPort + 1`, `+ 2`) within 16401–16440, and three
 * sentinels from `sentinelPort` (within 26401–26440) watching it as `name`, with a 1000 ms
 * down-after so a failover takes a few seconds.
 */
export async function startSentinel(
  dataPort: number,
  sentinelPort: number,
  name = 'mymaster',
): Promise<RedisServers & { sentinelUrls: string[] }> {
  const data = [dataPort, dataPort + 1, dataPort + 2]
  const sentinels = [sentinelPort, sentinelPort + 1, sentinelPort + 2]
  if (data[0]! < 16401 || data[2]! > 16440) throw new Error('data ports are 16401–16440')
  if (sentinels[0]! < 26401 || sentinels[2]! > 26440)
    throw new Error('sentinel ports are 26401–26440')
  const dir = mkdtempSync(join(tmpdir(), 'mg-sentinel-'))
  for (const port of sentinels) {
    writeFileSync(
      join(dir, `sentinel-${port}.conf`),
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `logfile ${port}.log`,
        `sentinel monitor ${name} 127.0.0.1 ${dataPort} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 10000`,
        `sentinel parallel-syncs ${name} 2`,
        '',
      ].join('\n'),
    )
  }
  const servers = startServers(
    dir,
    (port) =>
      sentinels.includes(port)
        ? [`sentinel-${port}.conf`, '--sentinel']
        : [
            ...common(port),
            ...(port === dataPort ? [] : ['--replicaof', '127.0.0.1', String(dataPort)]),
          ],
    [...data, ...sentinels],
  )
  try {
    for (const port of data.slice(1)) {
      await waitFor(`replica ${port} in sync`, async () =>
        (await ask(port, 'INFO', 'replication')).includes('master_link_status:up'),
      )
    }
    for (const port of sentinels) {
      await waitFor(`sentinel ${port}`, async () => {
        const info = await ask(port, 'INFO', 'sentinel')
        return info.includes(`name=${name},status=ok`) && /sentinels=3/.test(info)
      })
    }
  } catch (error) {
    await servers.stop()
    throw error
  }
  return {
    urls: data.map((port) => `redis://127.0.0.1:${port}`),
    sentinelUrls: sentinels.map((port) => `redis://127.0.0.1:${port}`),
    ...servers,
  }
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { timeout: 30_000 }, (error, stdout, stderr) =>
      error === null
        ? resolve(stdout)
        : reject(new Error(`${command}: ${stderr || error.message}`)),
    ),
  )
}
