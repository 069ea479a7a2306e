import { describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { createConsole } from '../../src/console/index'
import { adminToken, ConsoleClient, demoKey } from './console-setup'

/**
 * The console's catalogue shows, beside a model's list price, the upstreams of its group that
 * charge more for it where they run it, with the page that says so.
 */
describe('console catalogue: upstream surcharges', () => {
  it('names the regional Vertex upstream, ×1.1 and its source; none for the global one', async () => {
    const vertex = (id: string, region: string) => ({
      provider: 'vertex' as const,
      id,
      project: 'p',
      region,
      baseUrl: 'http://127.0.0.1:9',
      credentials: () => 'ya29.never-sent-0123456789',
    })
    const gateway = createGateway({
      groups: [
        {
          id: 'claude',
          protocol: 'anthropic',
          models: [
            { name: 'sonnet', upstreamModel: 'claude-sonnet-4-5@20250929' },
            { name: 'opus-old', upstreamModel: 'claude-opus-4-1@20250805' },
          ],
          upstreams: [vertex('vertex-global', 'global'), vertex('vertex-east', 'us-east5')],
        },
      ],
      keys: [{ key: demoKey, id: 'k' }],
    })
    const client = new ConsoleClient(
      createConsole(gateway, { auth: { adminTokens: [adminToken] } }),
    )
    await client.signIn(adminToken)
    const catalogue = (await client.call('GET', '/models')).data as {
      groups: Array<{ models: Array<{ name: string; price: { surcharges: unknown[] } | null }> }>
    }
    const [sonnet, old] = catalogue.groups[0]!.models
    expect(sonnet!.price!.surcharges).toEqual([
      {
        upstream: 'vertex-east',
        multiplier: 1.1,
        source:
          'https://platform.claude.com/docs/en/about-claude/pricing#third-party-platform-pricing',
      },
    ])
    expect(old!.price!.surcharges).toEqual([])
  })
})
