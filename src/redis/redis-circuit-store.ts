import type { CircuitStore } from '../failover/circuit-store'
import type { RedisScriptClient } from './redis-client'
import { defineRedisScript } from './redis-script'
import { createStoreHealth, type StoreLogger } from './store-health'
import { withTimeout } from './with-timeout'

/** Options of `createRedisCircuitStore`. */
export type RedisCircuitStoreOptions = {
  /** The two-method client the usage meter takes too. */
  client: RedisScriptClient
  /** The first part of the key (default `mg`): `mg:circuit:v2:{circuits}`. */
  prefix?: string | undefined
  /**
   * How often, at most, this instance reads the openings of the others (default 1000 ms): the
   * longest a circuit another instance opened may go unseen here. Reads happen only while
   * requests come, one script call per interval, never on a request's own path.
   */
  syncIntervalMs?: number | undefined
  /** Longest a Redis call may take before it counts as failed (default 200 ms). */
  timeoutMs?: number | undefined
  /** While Redis is down, one call per this interval tries it again (default 1000 ms). */
  probeIntervalMs?: number | undefined
  /** Where the loud lines about Redis going away and coming back go (default `console`). */
  logger?: StoreLogger | undefined
  /** The clock, the gateway's own (its `now`; default `Date.now`): the openings it reads are kept on it. */
  now?: (() => number) | undefined
}

/** A circuit store in Redis, with `sync` to read the shared openings now. */
export type RedisCircuitStore = CircuitStore & {
  /** Reads every instance's openings now (the gateway's `health()` does, before it answers). */
  sync(): Promise<void>
}

/**
 * Opens a circuit (when ARGV[1] names one) until Redis's `TIME` + ARGV[2] ms, unless it is held
 * open longer already — or, with ARGV[3] = `recovered`, marks it recovered now (a negative entry,
 * `-<time>`, kept for five minutes, the longest opening); drops the entries that have passed;
 * returns the rest as `[circuit, ms left, …]`, a recovery as `[circuit, "r<ms ago>", …]`. Times are the server's,
 * answered as durations, so instances whose clocks disagree still agree on when a circuit closes.
 * The hash expires with its last entry.
 */
/** The circuit store's one script, for the one-slot test. */
export const openingsScript = defineRedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local recoveryTtl = 300000
if ARGV[1] ~= '' then
  if ARGV[3] == 'recovered' then
    redis.call('HSET', KEYS[1], ARGV[1], -now)
  else
    local untilMs = now + tonumber(ARGV[2])
    local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') or 0
    if current < untilMs then redis.call('HSET', KEYS[1], ARGV[1], untilMs) end
  end
end
local all = redis.call('HGETALL', KEYS[1])
local open = {}
local latest = 0
for index = 1, #all, 2 do
  local value = tonumber(all[index + 1])
  if value == nil then
    redis.call('HDEL', KEYS[1], all[index])
  elseif value < 0 then
    if now + value > recoveryTtl then
      redis.call('HDEL', KEYS[1], all[index])
    else
      open[#open + 1] = all[index]
      open[#open + 1] = 'r' .. tostring(now + value)
      if -value + recoveryTtl > latest then latest = -value + recoveryTtl end
    end
  elseif value <= now then
    redis.call('HDEL', KEYS[1], all[index])
  else
    open[#open + 1] = all[index]
    open[#open + 1] = tostring(value - now)
    if value > latest then latest = value end
  end
end
if latest > 0 then redis.call('PEXPIREAT', KEYS[1], latest) end
return open
`)

/**
 * A circuit store shared by every gateway instance that uses the same Redis and prefix: a circuit
 * one instance opens is skipped by the others until its opening passes.
 *
 * Reads cost no Redis call on a request's path. Each instance keeps the openings it knows in
 * memory and answers picks from there; an opening it makes is written at once (one script call,
 * not awaited by the request), and the others' openings are read at most once per
 * `syncIntervalMs`, started by a pick and not awaited by it. So a circuit opened elsewhere is
 * skipped here within `syncIntervalMs` plus one round trip (LiteLLM re-reads its shared cooldowns
 * every second too). Pub/sub would be quicker but needs a held connection that the two-method
 * client, HTTP Redis (`@upstash/redis`) and Workers do not have.
 *
 * Only openings are shared: failure counts and the half-open probe stay per instance, so after an
 * opening passes each instance sends its own one probe.
 *
 * While Redis does not answer, each instance's own breakers keep working on what it sees alone
 * (its circuits open and close as with the memory store); one line is logged when Redis goes away
 * and one when it is back. Refusing traffic because the health store is down would turn a Redis
 * outage into an outage of every upstream.
 *
 * @example
 * import { createRedisCircuitStore } from 'model-gateway/redis'
 * createGateway({ ...config, circuitStore: createRedisCircuitStore({ client }) })
 */
export function createRedisCircuitStore(options: RedisCircuitStoreOptions): RedisCircuitStore {
  const key = `${options.prefix ?? 'mg'}:circuit:v2:{circuits}`
  const syncIntervalMs = options.syncIntervalMs ?? 1000
  const timeoutMs = options.timeoutMs ?? 200
  const clock = options.now ?? Date.now
  const health = createStoreHealth({
    name: 'Redis circuit store',
    whileDown:
      'Each instance opens and closes circuits on its own failures alone until it answers again.',
    probeIntervalMs: options.probeIntervalMs ?? 1000,
    now: clock,
    logger: options.logger ?? console,
  })
  /** Epoch ms on this instance's clock, by circuit. */
  let known = new Map<string, number>()
  /** When each circuit last recovered (a success that ended its rest), on this instance's clock. */
  let recoveries = new Map<string, number>()
  let lastSync = -Infinity
  let syncing: Promise<void> | undefined

  async function call(circuit: string, durationMs: number, recovered = false): Promise<void> {
    if (!health.shouldTry()) return
    const sentAt = clock()
    try {
      const reply = await withTimeout(
        openingsScript.run(
          options.client,
          [key],
          [circuit, String(Math.round(durationMs)), recovered ? 'recovered' : ''],
        ),
        timeoutMs,
      )
      health.succeeded()
      const read = openingsOf(reply, sentAt, clock(), known, recoveries)
      known = read.openings
      recoveries = read.recoveries
    } catch (error) {
      health.failed(error)
    }
  }

  function sync(): Promise<void> {
    lastSync = clock()
    syncing ??= call('', 0).finally(() => (syncing = undefined))
    return syncing
  }

  return {
    openUntil(circuit, now) {
      if (now - lastSync >= syncIntervalMs) void sync()
      const until = known.get(circuit)
      return until !== undefined && until > now ? until : undefined
    },
    open(circuit, durationMs, now) {
      const until = now + durationMs
      if ((known.get(circuit) ?? 0) < until) known.set(circuit, until)
      void call(circuit, durationMs)
    },
    recovered(circuit, now) {
      known.delete(circuit)
      recoveries.set(circuit, now)
      void call(circuit, 0, true)
    },
    recoveredAt(circuit) {
      return recoveries.get(circuit)
    },
    sync,
    async close() {
      await syncing
    },
  }
}

/**
 * The openings and recoveries a script reply lists, on this instance's clock: each duration
 * counted from when the call was sent, so an opening ends here at most one round trip early, never
 * late. Openings this instance made that the reply does not list yet (a write still on its way)
 * are kept, unless the circuit has recovered.
 */
function openingsOf(
  reply: unknown,
  sentAt: number,
  now: number,
  previous: ReadonlyMap<string, number>,
  previousRecoveries: ReadonlyMap<string, number>,
): { openings: Map<string, number>; recoveries: Map<string, number> } {
  const openings = new Map<string, number>()
  const recoveries = new Map<string, number>()
  if (!Array.isArray(reply)) {
    return { openings: new Map(previous), recoveries: new Map(previousRecoveries) }
  }
  for (let index = 0; index + 1 < reply.length; index += 2) {
    const circuit: unknown = reply[index]
    const value: unknown = reply[index + 1]
    if (typeof circuit !== 'string') continue
    const text = String(value)
    if (text.startsWith('r')) {
      const ago = Number(text.slice(1))
      if (Number.isFinite(ago)) recoveries.set(circuit, sentAt - ago)
      continue
    }
    const left = Number(text)
    if (Number.isFinite(left)) openings.set(circuit, sentAt + left)
  }
  for (const [circuit, at] of previousRecoveries) {
    if ((recoveries.get(circuit) ?? -Infinity) < at) recoveries.set(circuit, at)
  }
  for (const [circuit, until] of previous) {
    // A recovery in the reply ended the rest (a new opening since would be listed itself).
    if (recoveries.has(circuit) && !openings.has(circuit)) continue
    if (until > now && (openings.get(circuit) ?? 0) < until) openings.set(circuit, until)
  }
  return { openings, recoveries }
}
