import { describe, expect, it } from 'vitest'
import { createGateway, type UsageRecord } from '../../src/index'
import { openAIClient } from '../helpers/gateway'

const key = 'sk-lifecycle-0123456789abcdefABCD'

function gatewayWithLedger(chunkDelayMs = 0) {
  const recorded: UsageRecord[] = []
  const closed: string[] = []
  const gateway = createGateway({
    groups: [
      {
        id: 'demo',
        protocol: 'openai',
        models: ['demo-echo'],
        upstreams: [{ provider: 'mock', chunkDelayMs, reply: 'one two three four five six' }],
      },
    ],
    keys: [{ key }],
    usageLedger: {
      record: (record) => void recorded.push(record),
      close: async () => {
        closed.push(`ledger with ${recorded.length} records`)
      },
    },
  })
  return { gateway, recorded, closed }
}

describe('gateway.close()', () => {
  it('hands every settled request to the ledger, then closes it once', async () => {
    const { gateway, recorded, closed } = gatewayWithLedger()
    const client = openAIClient(gateway, key)
    await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'a' }],
    })
    await gateway.close()
    await gateway.close()
    expect(recorded).toHaveLength(1)
    expect(recorded[0]).toMatchObject({
      outcome: 'ok',
      model: 'demo-echo',
      route: 'chat.completions',
    })
    expect(closed).toEqual(['ledger with 1 records'])
  })

  it('waits for streams in flight, refuses new requests with 503, and closes the ledger last', async () => {
    const { gateway, recorded, closed } = gatewayWithLedger(30)
    const client = openAIClient(gateway, key)
    const stream = await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'a' }],
      stream: true,
    })
    const closing = gateway.close()
    const refused = await client.models.list().catch((error: { status?: number }) => error)
    expect(refused).toMatchObject({ status: 503 })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('one two three four five six')
    await closing
    expect(recorded.map((record) => record.outcome)).toEqual(['ok'])
    expect(closed).toEqual(['ledger with 1 records'])
  })

  it('stops waiting after its timeout and closes the parts anyway', async () => {
    const { gateway, closed } = gatewayWithLedger(10_000)
    const client = openAIClient(gateway, key)
    const stream = await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'a' }],
      stream: true,
    })
    const errors: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void errors.push(args.join(' '))
    try {
      await gateway.close({ timeoutMs: 50 })
    } finally {
      console.error = original
    }
    expect(errors.join('\n')).toMatch(/1 requests still in flight after 50 ms/)
    expect(closed).toEqual(['ledger with 0 records'])
    stream.controller.abort()
  })
})
