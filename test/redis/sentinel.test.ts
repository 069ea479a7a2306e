import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGatewayWithState } from '../../src/node/index'
import { fetchThrough, gatewayUrl } from '../helpers/gateway'
import { startSentinel, waitFor, type RedisServers } from '../helpers/redis-servers'
import { chat, clusterConfig, trafficKeys, usageOf } from './cluster-traffic'

/**
 * A Sentinel-managed primary with two replicas (ports 16401–16403) and three sentinels
 * (26401–26403): two gateways share a quota under a burst, then the primary is killed and the
 * gateways follow the promoted replica by themselves.
 */
let servers: RedisServers & { sentinelUrls: string[] }
beforeAll(async () => {
  servers = await startSentinel(16401, 26401)
}, 60_000)
afterAll(async () => {
  await servers?.stop()
})

describe('Redis Sentinel', { timeout: 90_000 }, () => {
  it('holds a quota across two gateways under a burst, then follows a failover', async () => {
    const quiet = { warn: () => undefined, error: () => undefined }
    const config = clusterConfig(
      { sentinel: { nodes: servers.sentinelUrls, name: 'mymaster' } },
      'st',
      {
        redisTimeoutMs: 2000,
      },
    )
    const gateways = await Promise.all([
      createGatewayWithState(config as never, { logger: quiet }),
      createGatewayWithState(config as never, { logger: quiet }),
    ])
    try {
      const fetches = gateways.map((gateway) => fetchThrough(gateway))
      const key = trafficKeys.quota.key
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, index) => chat(gatewayUrl, key, index, fetches[index % 2])),
      )
      expect(new Set(outcomes.map((outcome) => outcome.status))).toEqual(new Set([200, 429]))
      const used = outcomes.reduce((sum, outcome) => sum + (outcome.tokens ?? 0), 0)
      const largest = Math.max(...outcomes.map((outcome) => outcome.tokens ?? 0))
      expect(used).toBeLessThanOrEqual(3000 + largest)
      const usage = await usageOf(gatewayUrl, key, fetches[1])
      expect(usage.limits.tokensPerDay.used).toBe(used)
      expect((await gateways[0]!.health()).state?.redis?.description).toBe(
        'Sentinel primary "mymaster" at 127.0.0.1:16401',
      )

      const killedAt = Date.now()
      servers.kill(16401)
      let back = 0
      await waitFor(
        'a budgeted request served by the promoted primary',
        async () => {
          const outcome = await chat(gatewayUrl, trafficKeys.money.key, 1, fetches[0])
          if (outcome.status === 200) back = Date.now()
          return outcome.status === 200
        },
        60_000,
      )
      const description = (await gateways[0]!.health()).state?.redis?.description
      expect(description).toMatch(/^Sentinel primary "mymaster" at 127\.0\.0\.1:1640[23]$/)
      console.log(
        `sentinel failover: budgeted service back ${back - killedAt} ms after the kill (${description})`,
      )
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.close()))
    }
  })
})
