import { describe, expect, it } from 'vitest'
import { buildGroupRegistry } from '../../src/config/build-parts'
import { parseGatewayConfig } from '../../src/config/parse-config'
import { configError } from '../helpers/config-error'

const key = 'sk-config-test-0123456789abcdef'

describe('failover config: selection and health', () => {
  it('accepts balancing, session affinity, circuit breakers, key pools and concurrency limits, and builds them into the group', async () => {
    const config = parseGatewayConfig({
      groups: [
        {
          id: 'pool',
          protocol: 'anthropic',
          models: ['claude'],
          balancing: 'least-in-flight',
          sessionAffinity: { header: 'X-Session-Id' },
          circuitBreaker: { consecutiveFailures: 3, cooldownMs: 5_000, failureRatio: 1 },
          keyPool: { rotation: 'least-used', rejectedCooldownMs: 60_000 },
          upstreams: [
            {
              baseUrl: 'https://api.anthropic.com',
              apiKeys: ['${KEY_ONE}', 'sk-ant-second-key-0000000000002222'],
              maxConcurrent: 8,
            },
            { provider: 'mock', maxConcurrent: 2 },
          ],
        },
        {
          id: 'plain',
          protocol: 'openai',
          models: ['m'],
          sessionAffinity: true,
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [{ key }],
      env: { KEY_ONE: 'sk-ant-first-key-00000000000001111' },
    })
    const [pool, plain] = await buildGroupRegistry(config, Date.now).list()
    expect(pool).toMatchObject({
      balancing: 'least-in-flight',
      sessionAffinity: { header: 'x-session-id' },
      circuitBreaker: { consecutiveFailures: 3, cooldownMs: 5_000, failureRatio: 1 },
      keyPool: { rotation: 'least-used', rejectedCooldownMs: 60_000 },
    })
    const [http, mock] = pool!.upstreams
    // Every pooled key, ${ENV} expanded, is a secret; only masked forms are exposed.
    expect(http!.credentials).toEqual(['sk-…1111', 'sk-…2222'])
    expect(http!.secrets).toEqual(
      expect.arrayContaining([
        'sk-ant-first-key-00000000000001111',
        'sk-ant-second-key-0000000000002222',
      ]),
    )
    expect(http!.maxConcurrent).toBe(8)
    expect(mock!.maxConcurrent).toBe(2)
    expect(plain!.sessionAffinity).toEqual({})
  })

  it('names each bad field by its path', () => {
    const error = configError({
      groups: [
        {
          id: 'g',
          protocol: 'openai',
          models: ['m'],
          balancing: 'random',
          sessionAffinity: { header: 'not a header' },
          circuitBreaker: { consecutiveFailures: 0, failureRatio: 1.5, jitter: 1, surprise: 1 },
          keyPool: { rotation: 'lru' },
          upstreams: [
            { baseUrl: 'https://b.test/v1', apiKeys: [] },
            { baseUrl: 'https://c.test/v1', apiKeys: [''], maxConcurrent: 0 },
          ],
        },
      ],
      keys: [{ key }],
    })
    expect(error.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([
        'groups[0].balancing',
        'groups[0].sessionAffinity.header',
        'groups[0].circuitBreaker.consecutiveFailures',
        'groups[0].circuitBreaker.failureRatio',
        'groups[0].circuitBreaker.jitter',
        'groups[0].circuitBreaker',
        'groups[0].keyPool.rotation',
        'groups[0].upstreams[0].apiKeys',
        'groups[0].upstreams[1].apiKeys[0]',
        'groups[0].upstreams[1].maxConcurrent',
      ]),
    )
  })

  it('takes one of apiKey or apiKeys, not both', () => {
    const error = configError({
      groups: [
        {
          id: 'g',
          protocol: 'openai',
          models: ['m'],
          upstreams: [{ baseUrl: 'https://a.test/v1', apiKey: 'sk-a', apiKeys: ['sk-b'] }],
        },
      ],
      keys: [{ key }],
    })
    expect(error.issues).toEqual([
      { path: 'groups[0].upstreams[0].apiKeys', message: 'give one of "apiKey" or "apiKeys"' },
    ])
  })
})
