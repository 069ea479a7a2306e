import { describe, expect, it } from 'vitest'
import { createGateway, GatewayConfigError, type GatewayConfig } from '../../src/index'
import { readStateConfig } from '../../src/node/index'
import { gatewayUrl } from '../helpers/gateway'

const groups = [
  { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
] as const
const configKey = 'sk-config-side-0123456789abcdef'
const storeKey = 'sk-store-side-0123456789abcdef'

function issuesOf(config: unknown): Record<string, string> {
  try {
    createGateway(config as GatewayConfig)
  } catch (error) {
    if (!(error instanceof GatewayConfigError)) throw error
    return Object.fromEntries(error.issues.map((issue) => [issue.path, issue.message]))
  }
  throw new Error('The config was accepted.')
}

const modelsWith = (gateway: ReturnType<typeof createGateway>, key: string) =>
  gateway(new Request(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } }))

describe('the state section', () => {
  it('validates every field and names the bad ones', () => {
    const issues = issuesOf({
      groups,
      keys: [],
      state: {
        postgres: 'mysql://x',
        prefix: 'Bad-Prefix',
        schema: '1; drop',
        ledger: { batchSize: 0 },
        extra: 1,
      },
    })
    expect(Object.keys(issues)).toEqual(
      expect.arrayContaining([
        'state.postgres',
        'state.prefix',
        'state.schema',
        'state.ledger.batchSize',
        'state',
      ]),
    )
  })

  it('tells a core user that a Postgres URL needs the Node helper or plug-ins', () => {
    const issues = issuesOf({ groups, keys: [], state: { postgres: 'postgres://localhost/db' } })
    expect(issues['state.postgres']).toMatch(
      /createGatewayWithState\(\) from "model-gateway\/node"/,
    )
  })

  it('expands ${NAME} in state, and reads nothing else of the config', () => {
    expect(
      readStateConfig(
        { postgres: '${DATABASE_URL}', prefix: 'tenant_a' },
        { DATABASE_URL: 'postgres://db/x' },
      ),
    ).toEqual({ postgres: 'postgres://db/x', prefix: 'tenant_a' })
    expect(() => readStateConfig({ postgres: '${NOT_SET_ANYWHERE}' }, {})).toThrow(
      /state\.postgres: environment variable NOT_SET_ANYWHERE is not set/,
    )
    expect(readStateConfig(undefined, {})).toBeUndefined()
  })
})

describe('keys from the config beside a key store', () => {
  it('asks the config first, then the store; an unknown key is refused', async () => {
    const looked: string[] = []
    const gateway = createGateway({
      groups,
      keys: [{ key: configKey, id: 'from-config' }],
      keyStore: {
        lookup(secret) {
          looked.push(secret)
          return secret === storeKey ? { id: 'from-store' } : undefined
        },
      },
    })
    expect((await modelsWith(gateway, configKey)).status).toBe(200)
    expect((await modelsWith(gateway, storeKey)).status).toBe(200)
    expect((await modelsWith(gateway, 'sk-nobody-0123456789abcdef')).status).toBe(401)
    // The config's key never reached the store.
    expect(looked).toEqual([storeKey, 'sk-nobody-0123456789abcdef'])
  })

  it('needs at least one of them', () => {
    expect(issuesOf({ groups })['keys']).toBe('give "keys", a "keyStore", or both')
  })
})
