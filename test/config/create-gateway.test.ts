import { describe, expect, it } from 'vitest'
import { createGateway, hashKey } from '../../src/index'
import { configError } from '../helpers/config-error'
import { gatewayUrl } from '../helpers/gateway'

const group = {
  id: 'demo',
  protocol: 'openai',
  models: ['demo-echo'],
  upstreams: [{ provider: 'mock' }],
} as const
const key = 'sk-config-test-0123456789abcdef'

describe('createGateway config validation', () => {
  it('throws one error that lists every bad field by its path', () => {
    const error = configError({
      groupIdRouting: 'yes',
      groups: [
        {
          id: 'a/b',
          protocol: 'grpc',
          models: [],
          upstreams: [{ baseUrl: 'not a url' }, { provider: 'mock', weight: -1 }],
        },
      ],
      keys: [{ key: 'pk-short' }, { key, keyHash: 'sha256:00' }],
      surprise: true,
    })
    const paths = error.issues.map((issue) => issue.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        'groupIdRouting',
        'groups[0].id',
        'groups[0].protocol',
        'groups[0].models',
        'groups[0].upstreams[0].baseUrl',
        'groups[0].upstreams[1].weight',
        'keys[0].key',
        'keys[1]',
      ]),
    )
    expect(error.message).toContain('groups[0].upstreams[0].baseUrl')
    expect(error.issues.some((issue) => /surprise/.test(issue.message))).toBe(true)
  })

  it('names a missing environment variable', () => {
    const error = configError({
      groups: [
        {
          ...group,
          upstreams: [{ baseUrl: 'https://api.openai.com/v1', apiKey: '${NO_SUCH_VARIABLE_XYZ}' }],
        },
      ],
      keys: [{ key }],
      env: {},
    })
    expect(error.issues).toEqual([
      {
        path: 'groups[0].upstreams[0].apiKey',
        message: 'environment variable NO_SUCH_VARIABLE_XYZ is not set',
      },
    ])
  })

  it('reads ${NAME} from the environment', async () => {
    const seen: string[] = []
    const gateway = createGateway({
      groups: [
        { ...group, upstreams: [{ baseUrl: '${UPSTREAM_URL}', apiKey: '${UPSTREAM_KEY}' }] },
      ],
      keys: [{ key }],
      env: { UPSTREAM_URL: 'https://upstream.example/v1', UPSTREAM_KEY: 'sk-up' },
      fetch: async (input, init) => {
        seen.push(String(input), new Headers(init?.headers).get('authorization') ?? '')
        return Response.json({ choices: [] })
      },
    })
    await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'demo-echo', messages: [{ role: 'user', content: 'x' }] }),
      }),
    )
    expect(seen).toEqual(['https://upstream.example/v1/chat/completions', 'Bearer sk-up'])
  })

  it('rejects unknown groups in keys, duplicates, and credential headers on the forward list', () => {
    const error = configError({
      groups: [group, group],
      keys: [{ key, groups: ['nope'] }, { key }],
      forwardHeaders: ['Authorization'],
    })
    expect(error.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(['groups[1].id', 'keys[0].groups[0]', 'keys[1]', 'forwardHeaders[0]']),
    )
  })

  it('needs groups and keys, or their plug-in objects', () => {
    const error = configError({})
    expect(error.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(['groups', 'keys']),
    )
  })

  it('accepts a key given only by its SHA-256 hash', async () => {
    const gateway = createGateway({
      groups: [group],
      keys: [{ keyHash: `sha256:${await hashKey(key)}`, name: 'hashed' }],
    })
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/usage`, { headers: { authorization: `Bearer ${key}` } }),
    )
    expect(response.status).toBe(200)
    expect(((await response.json()) as { planName: string }).planName).toBe('hashed')
  })

  it('accepts plug-in objects in code', async () => {
    const gateway = createGateway({
      groupRegistry: {
        list: () => [],
        get: () => undefined,
        servingModel: () => [],
      },
      keyStore: { lookup: (secret) => (secret === key ? { id: 'custom' } : undefined) },
    })
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } }),
    )
    expect(await response.json()).toEqual({ object: 'list', data: [] })
  })
})
