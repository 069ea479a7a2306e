import { describe, expect, it } from 'vitest'
import { createMemoryKeyStore, type KeyRecord, type UpstreamProvider } from '../../src/index'
import { hashKey } from '../../src/auth/hash-key'
import { buildGateway, gatewayUrl, keys } from '../helpers/gateway'

/** A key store whose lookups wait for the test, as a remote store might under load. */
async function slowKeyStore() {
  const store = createMemoryKeyStore([
    { hash: await hashKey(keys.main), record: { id: 'main', name: 'main' } },
  ])
  let resume!: () => void
  let looking!: () => void
  const lookingUp = new Promise<void>((resolve) => (looking = resolve))
  return {
    keyStore: {
      lookup: (secret: string) => {
        looking()
        return new Promise<KeyRecord | undefined>((resolve) => {
          resume = () => resolve(store.lookup(secret) as KeyRecord | undefined)
        })
      },
    },
    lookingUp,
    release: () => resume(),
  }
}

describe('a client that left before the upstream call', () => {
  it('is never forwarded upstream, even by a provider that ignores its signal', async () => {
    let calls = 0
    const careless: UpstreamProvider = {
      id: 'careless',
      protocol: 'openai',
      async send() {
        calls += 1
        return Response.json({ choices: [] })
      },
    }
    const { keyStore, lookingUp, release } = await slowKeyStore()
    const { gateway, events, meter } = buildGateway({
      groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [careless] }],
      keys: undefined,
      keyStore,
    })
    const client = new AbortController()
    const answer = gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
        signal: client.signal,
      }),
    )
    // The client gives up while the gateway is still looking its key up.
    await lookingUp
    client.abort()
    release()
    const response = await answer
    expect(response.status).toBe(499)
    expect(calls).toBe(0)
    expect(events[0]).toMatchObject({ outcome: 'aborted', status: 499 })
    expect(meter.records().map((record) => record.outcome)).not.toContain('ok')
  })
})
