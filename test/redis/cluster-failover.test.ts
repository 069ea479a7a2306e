import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGatewayWithState } from '../../src/node/index'
import { fetchThrough, gatewayUrl } from '../helpers/gateway'
import { keySlot } from '../helpers/redis-slots'
import { ask, startCluster, waitFor, type RedisServers } from '../helpers/redis-servers'
import { chat, clusterConfig, trafficKeys, usageOf, type Outcome } from './cluster-traffic'

/**
 * A master of a real Redis Cluster (ports 17027–17032) killed mid-traffic: during the gap the
 * failure policy holds (keys without limits served, budgeted keys 503 with retry-after), and once
 * a replica is promoted service resumes by itself, with one log line each way.
 */
let cluster: RedisServers
beforeAll(async () => {
  cluster = await startCluster(17027)
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
})

/** The port of the master serving `slot`, from a live node's `CLUSTER NODES`. */
async function masterOf(slot: number, askPort: number): Promise<number> {
  const nodes = await ask(askPort, 'CLUSTER', 'NODES')
  for (const fields of nodes
    .trim()
    .split('\n')
    .map((line) => line.split(' '))) {
    if (!fields[2]!.includes('master') || fields[2]!.includes('fail')) continue
    for (const range of fields.slice(8)) {
      const [from, to] = range.split('-').map(Number)
      if (slot >= from! && slot <= (to ?? from!)) return Number(/:(\d+)@/.exec(fields[1]!)![1])
    }
  }
  throw new Error(`no master serves slot ${slot}`)
}

describe('Redis Cluster failover', { timeout: 90_000 }, () => {
  it('keeps the failure policy during the gap and recovers by itself after the promotion', async () => {
    const lines: string[] = []
    const logger = {
      warn: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    }
    const gateway = await createGatewayWithState(
      clusterConfig({ cluster: cluster.urls }, 'fo') as never,
      { logger },
    )
    try {
      const url = gatewayUrl
      const request = (key: string, index: number) => chat(url, key, index, fetchThrough(gateway))
      const budgeted = trafficKeys.quota.key
      const plain = trafficKeys.plain.key
      // Warm: both keys served through the cluster.
      const warmed = await request(budgeted, 0)
      expect(warmed.status).toBe(200)
      expect((await request(plain, 0)).status).toBe(200)
      const victim = await masterOf(keySlot(`{k:${trafficKeys.quota.id}}`), 17027 + 5)
      const survivor = cluster.urls
        .map((entry) => Number(new URL(entry).port))
        .find((port) => port !== victim)!

      const timeline: { at: number; key: 'budgeted' | 'plain'; outcome: Outcome }[] = []
      let stop = false
      const traffic = (async () => {
        for (let index = 1; !stop; index += 1) {
          const [one, two] = await Promise.all([request(budgeted, index), request(plain, index)])
          const at = Date.now()
          timeline.push({ at, key: 'budgeted', outcome: one }, { at, key: 'plain', outcome: two })
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })()
      await new Promise((resolve) => setTimeout(resolve, 300))
      const killedAt = Date.now()
      cluster.kill(victim)
      // Service resumes by itself: budgeted requests answered 200 again after some 503s.
      await waitFor(
        'budgeted requests to be served again',
        () => {
          const after = timeline.filter((entry) => entry.at > killedAt && entry.key === 'budgeted')
          const firstRefusal = after.findIndex((entry) => entry.outcome.status === 503)
          return (
            firstRefusal >= 0 &&
            after.slice(firstRefusal).some((entry) => entry.outcome.status === 200)
          )
        },
        60_000,
      )
      await new Promise((resolve) => setTimeout(resolve, 500))
      stop = true
      await traffic

      const budgetedAfter = timeline.filter(
        (entry) => entry.key === 'budgeted' && entry.at > killedAt,
      )
      const refused = budgetedAfter.filter((entry) => entry.outcome.status === 503)
      const lastRefusal = refused.at(-1)!.at
      const gapMs = lastRefusal - refused[0]!.at
      // The policy during the gap: budgeted keys 503 with retry-after, never another failure;
      // keys without limits served throughout.
      for (const entry of refused) expect(entry.outcome.retryAfter).toBe('1')
      for (const entry of timeline) expect([200, 503]).toContain(entry.outcome.status)
      expect(
        timeline
          .filter((entry) => entry.key === 'plain')
          .every((entry) => entry.outcome.status === 200),
      ).toBe(true)
      // One line when the store stopped answering, one when it was back.
      // (Per store: the circuit store's one key may live on the killed master too.)
      const usageLines = lines.filter((line) => line.includes('Redis usage store'))
      expect(
        usageLines.filter((line) => line.includes('is not answering')),
        lines.join('\n'),
      ).toHaveLength(1)
      expect(
        usageLines.filter((line) => line.includes('is answering again')),
        lines.join('\n'),
      ).toHaveLength(1)
      // Readiness and the topology after the promotion: three masters, every slot served.
      await waitFor('every slot served again', async () => {
        await gateway.state.checks!['redis']!()
        return true
      })
      expect((await gateway.health()).state?.redis?.description).toBe(
        'cluster with 3 masters (every slot served)',
      )
      // Usage lost: what the clients were charged against what the promoted replica counts.
      const charged = timeline
        .filter((entry) => entry.key === 'budgeted')
        .reduce((sum, entry) => sum + (entry.outcome.tokens ?? 0), warmed.tokens!)
      const first = (await request(budgeted, 0)).tokens ?? 0
      const counted =
        (await usageOf(url, budgeted, fetchThrough(gateway))).limits.tokensPerDay.used - first
      const warm = charged
      console.log(
        `cluster failover: killed master ${victim} (survivor ${survivor}); gap ${gapMs} ms (${refused.length} budgeted 503s, first ${refused[0]!.at - killedAt} ms after the kill); plain keys ${timeline.filter((entry) => entry.key === 'plain' && entry.at > killedAt).length} served; usage charged ${warm} tokens, counted after promotion ${counted}, lost ${warm - counted}`,
      )
      // Where the loss sits: tokens of the budgeted 200s answered just before the kill, and
      // after it (settles of requests admitted before the kill).
      const tokensBetween = (from: number, to: number) =>
        timeline
          .filter((entry) => entry.key === 'budgeted' && entry.at > from && entry.at <= to)
          .reduce((sum, entry) => sum + (entry.outcome.tokens ?? 0), 0)
      console.log(
        `cluster failover: tokens answered in the last 100/250/500 ms before the kill ${tokensBetween(killedAt - 100, killedAt)}/${tokensBetween(killedAt - 250, killedAt)}/${tokensBetween(killedAt - 500, killedAt)}; after the kill before the first refusal ${tokensBetween(killedAt, refused[0]!.at)}`,
      )
      expect(counted).toBeLessThanOrEqual(warm)
    } finally {
      await gateway.close()
    }
  })
})
