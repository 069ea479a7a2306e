import { describe, expect, it } from 'vitest'
import { maskKey } from '../../src/auth/mask-key'
import { createMemoryKeyAdmin } from '../../src/console/memory-key-admin'
import { createGateway, type RequestEvent } from '../../src/index'
import { formatRequestLog } from '../../src/node/cli/request-log'
import { generateDatabaseKey } from '../../src/postgres/key-format'

describe('maskKey', () => {
  it('shows a database key as keys list does, by its public id, never its secret', () => {
    const { key, publicId } = generateDatabaseKey()
    expect(maskKey(key)).toBe(`sk-mg-${publicId}-…`)
    expect(maskKey(key)).not.toContain(key.slice(-4))
  })

  it('shows any other key by its last four characters, and a short or odd one not at all', () => {
    expect(maskKey('sk-demo-local-only-0123456789')).toBe('sk-…6789')
    // Shaped like a database key but not one (a secret too short, an upper-case id): last four.
    expect(maskKey('sk-mg-abcdefghijkl-short-secret-0000')).toBe('sk-…0000')
    expect(maskKey(`sk-mg-ABCDEFGHIJKL-${'a'.repeat(48)}`)).toBe('sk-…aaaa')
    expect(maskKey('sk-short')).toBe('sk-…')
    expect(maskKey('')).toBeUndefined()
    expect(maskKey(undefined)).toBeUndefined()
  })
})

describe('the request log', () => {
  it('names a database key the way keys list and the console show it', async () => {
    const keys = createMemoryKeyAdmin()
    const events: RequestEvent[] = []
    const gateway = createGateway({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keyStore: keys,
      onEvent: (event) => events.push(event),
    })
    const { key, stored } = await keys.create({ name: 'logged' })
    const response = await gateway(
      new Request('http://gateway.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'demo-echo', messages: [{ role: 'user', content: 'Hi' }] }),
      }),
    )
    expect(response.status).toBe(200)
    await response.text()
    await gateway.close()
    expect(events).toHaveLength(1)
    expect(events[0]!.key).toBe(stored.display)
    expect(formatRequestLog(events[0]!)).toContain(` key=${stored.display} `)
  })
})
