import { describe, expect, it } from 'vitest'
import { adminToken, consoleGateway, ConsoleClient, otherKey } from '../console/console-setup'

describe('the console group view', () => {
  it('shows whether a group caches, and its hit rate and savings', async () => {
    const { app, gateway } = consoleGateway({
      config: {
        groups: [
          {
            id: 'chat',
            protocol: 'openai',
            models: ['echo-1'],
            upstreams: [{ provider: 'mock' }],
            cache: { ttlSeconds: 120, scope: 'team' },
          },
          {
            id: 'plain',
            protocol: 'openai',
            models: ['echo-2'],
            upstreams: [{ provider: 'mock' }],
          },
        ],
      },
    })
    for (let index = 0; index < 3; index++) {
      const answer = await gateway(
        new Request('http://gateway.test/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'echo-1', messages: [{ role: 'user', content: 'again' }] }),
        }),
      )
      expect(answer.status).toBe(200)
      await answer.text()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const client = new ConsoleClient(app)
    await client.signIn(adminToken)
    const { status, data } = await client.call('GET', '/models')
    expect(status).toBe(200)
    const groups = data['groups'] as Array<{ id: string; cache: Record<string, unknown> | null }>
    expect(groups.find((group) => group.id === 'plain')!.cache).toBeNull()
    expect(groups.find((group) => group.id === 'chat')!.cache).toMatchObject({
      ttlSeconds: 120,
      scope: 'team',
      hits: 2,
      misses: 1,
      hitRate: 2 / 3,
    })
  })
})
