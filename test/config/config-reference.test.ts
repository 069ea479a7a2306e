import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { generatedFiles } from '../../scripts/config-reference/outputs'
import { buildConfigReference } from '../../scripts/config-reference/json-schema'
import { configFieldDocs, type FieldDoc } from '../../src/config/field-docs'
import { defaultCircuitPolicy } from '../../src/failover/circuit-policy'
import { defaultKeyCooldowns } from '../../src/failover/key-pool'
import { defaultRetryPolicy } from '../../src/failover/retry-policy'
import { createGateway, createMemoryKeyStore, createMemoryUsageMeter } from '../../src/index'
import { defaultLeaseMs } from '../../src/usage/memory-usage-meter'
import { configError } from '../helpers/config-error'

const root = new URL('../..', import.meta.url).pathname
const schema = JSON.parse(readFileSync(join(root, 'config.schema.json'), 'utf8')) as object

// Strict, but for `strictRequired`: "one of these fields is required" (`anyOf` of `required`)
// names fields that the branch itself does not define, as JSON Schema allows.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false })
addFormats(ajv)
const validate = ajv.compile(schema)

/** Where the JSON Schema refuses a config, as the gateway writes paths (`groups[0].id`). */
function schemaErrorPaths(config: unknown): string[] {
  if (validate(config)) return []
  return validate.errors!.map((error) => {
    const parts = error.instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    // A missing field is reported at its object; the gateway reports it at the field.
    if (error.keyword === 'required') parts.push(String(error.params.missingProperty))
    return parts.reduce(
      (path, part) =>
        /^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`,
      '',
    )
  })
}

const key = 'sk-config-reference-0123456789'
const group = {
  id: 'demo',
  protocol: 'openai',
  models: ['demo-echo'],
  upstreams: [{ provider: 'mock' }],
}

/** The plug-ins the CLI makes of `state` (`createGatewayWithState`), for the gateway's own check. */
const connectedState = {
  keyStore: createMemoryKeyStore([]),
  usageMeter: createMemoryUsageMeter(),
  usageLedger: { record() {} },
}

describe('config.schema.json and the reference in docs/configuration.md', () => {
  it('are what `npm run generate:config-docs` writes (CI fails when either is stale)', async () => {
    for (const file of await generatedFiles(root)) {
      expect(
        readFileSync(file.path, 'utf8'),
        `${file.path} is stale: run npm run generate:config-docs`,
      ).toBe(file.text)
    }
  })

  it('is in the package, as model-gateway/config.schema.json', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(manifest.files).toContain('config.schema.json')
    expect(createRequire(import.meta.url).resolve('model-gateway/config.schema.json')).toBe(
      join(root, 'config.schema.json'),
    )
  })

  it('is a valid draft 2020-12 schema, in ajv strict mode', () => {
    expect(ajv.validateSchema(schema)).toBe(true)
    expect(validate).toBeTypeOf('function')
  })

  it('describes every field, and every field it describes exists', () => {
    const { fields } = buildConfigReference()
    expect(fields.map((field) => field.path).sort()).toEqual(Object.keys(configFieldDocs).sort())
    expect(fields.filter((field) => field.codeOnly).map((field) => field.path)).toEqual([
      'mcpSessionStore',
      'mcpTransports',
      'groups[].upstreams[].credentials',
      'groupRegistry',
      'upstreamKinds',
      'keyStore',
      'teamStore',
      'usageMeter',
      'usageLedger',
      'responseStore',
      'responseCache',
      'upstreamSelector',
      'circuitStore',
      'fetch',
      'cloudCredentials',
      'hashKey',
      'generateId',
      'now',
      'random',
      'onEvent',
      'interceptors',
      'onBudgetAlert',
    ])
    for (const path of ['fetch', 'keyStore', 'usageMeter', 'onEvent'])
      expect(schemaErrorPaths({ groups: [group], keys: [{ key }], [path]: {} })).toEqual([''])
  })

  it('states the defaults the code applies, from its own constants', () => {
    const doc = (path: string) => (configFieldDocs[path] as FieldDoc).default
    for (const [name, value] of Object.entries(defaultRetryPolicy)) {
      if (name === 'budget') continue
      expect(doc(`groups[].retry.${name}`), name).toBe(value)
    }
    for (const [name, value] of Object.entries(defaultRetryPolicy.budget))
      expect(doc(`groups[].retry.budget.${name}`), name).toBe(value)
    for (const [name, value] of Object.entries(defaultCircuitPolicy)) {
      if (name === 'enabled') continue
      expect(doc(`groups[].circuitBreaker.${name}`), name).toBe(value)
    }
    expect(doc('groups[].keyPool.rejectedCooldownMs')).toBe(defaultKeyCooldowns.rejectedMs)
    expect(doc('groups[].keyPool.quotaCooldownMs')).toBe(defaultKeyCooldowns.quotaMs)
    expect(doc('state.leaseMs')).toBe(defaultLeaseMs)
  })

  it('accepts every example config, which the gateway accepts too ($schema included)', () => {
    const examples = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.json'))
    expect(examples).toContain('gateway.config.json')
    for (const name of examples) {
      const config = JSON.parse(readFileSync(join(root, 'examples', name), 'utf8')) as Record<
        string,
        unknown
      >
      expect(config.$schema, name).toBe('../config.schema.json')
      expect(schemaErrorPaths(config), name).toEqual([])
      // The demo's console reads its admin token from the environment, as a deployment should.
      const env = { CONSOLE_ADMIN_TOKEN: 'console-admin-token-0123456789' }
      expect(() => createGateway({ ...config, env } as never), name).not.toThrow()
    }
  })

  it("accepts the reference's own example, which the gateway accepts too", () => {
    // Only the generated block: the page's prose has configs of its own, checked by test/docs.
    const page = readFileSync(join(root, 'docs/configuration.md'), 'utf8')
    const start = page.indexOf('<!-- config-reference:start -->')
    const end = page.indexOf('<!-- config-reference:end -->')
    expect(start).toBeGreaterThan(-1)
    expect(end).toBeGreaterThan(start)
    const examples = [...page.slice(start, end).matchAll(/```json\n([\s\S]*?)```/g)].map((match) =>
      JSON.parse(match[1]!),
    )
    expect(examples.length).toBeGreaterThan(0)
    for (const config of examples) {
      expect(schemaErrorPaths(config)).toEqual([])
      expect(() => createGateway(config)).not.toThrow()
    }
  })

  it('accepts what the gateway accepts: ${NAME} strings, every kind of upstream and model, state', () => {
    const config = {
      $schema: './node_modules/model-gateway/config.schema.json',
      basePath: '/llm',
      forwardHeaders: ['traceparent', 'x-tenant'],
      groups: [
        {
          id: 'gpt',
          protocol: 'openai',
          models: [
            'gpt-4o-mini',
            {
              name: 'coder',
              upstreamModel: 'Qwen/Qwen3-Coder',
              profile: {
                contextWindow: 65536,
                maxOutputTokens: 16384,
                reasoning: { kind: 'budget', min: 0, max: 8192, canDisable: true },
              },
              fallbacks: ['claude/sonnet'],
            },
          ],
          upstreams: [
            {
              baseUrl: '${OPENAI_BASE_URL}',
              apiKeys: ['${KEY_1}', '${KEY_2}'],
              weight: 2,
              responses: true,
            },
            {
              id: 'backup',
              baseUrl: 'https://api.example.com/v1',
              apiKey: '${BACKUP_KEY}',
              maxConcurrent: 8,
            },
            { provider: 'mock', reply: 'hi', chunkDelayMs: 5 },
          ],
          retry: { attempts: 2, budget: { share: 0.1 } },
          balancing: 'least-in-flight',
          sessionAffinity: { header: 'x-session-id' },
          circuitBreaker: false,
          keyPool: { rotation: 'least-used' },
        },
        {
          id: 'claude',
          protocol: 'anthropic',
          models: [{ name: 'sonnet', upstreamModel: 'claude-sonnet-4-5' }],
          upstreams: [{ baseUrl: 'https://api.anthropic.com', apiKey: '${ANTHROPIC_API_KEY}' }],
          circuitBreaker: { consecutiveFailures: 3, jitter: 0 },
        },
      ],
      keys: [
        {
          key: '${TEAM_KEY}',
          limits: { requestsPerMinute: 60, tokensPerDay: 0 },
          expiresAt: '2030-01-01T00:00:00Z',
        },
        {
          keyHash: `sha256:${'a'.repeat(64)}`,
          groups: ['claude'],
          quota: { tokens: 1000 },
          disabled: true,
        },
      ],
      state: {
        redis: '${REDIS_URL}',
        postgres: 'postgres://gateway@db/gateway',
        prefix: 'mg',
        ledger: { batchSize: 100 },
        onFailure: { budgets: 'open' },
      },
      env: {
        OPENAI_BASE_URL: 'https://api.openai.com/v1',
        KEY_1: 'sk-one',
        KEY_2: 'sk-two',
        BACKUP_KEY: 'sk-backup',
        ANTHROPIC_API_KEY: 'sk-ant',
        TEAM_KEY: 'sk-team-a-0123456789abcdef',
        REDIS_URL: 'redis://127.0.0.1:6379',
      },
    }
    expect(schemaErrorPaths(config)).toEqual([])
    expect(() => createGateway({ ...config, ...connectedState } as never)).not.toThrow()
    // Keys may all live in Postgres.
    const { keys: _, ...withoutKeys } = config
    expect(schemaErrorPaths(withoutKeys)).toEqual([])
    expect(() => createGateway({ ...withoutKeys, ...connectedState } as never)).not.toThrow()
  })

  const refused: [string, unknown, string][] = [
    ['an unknown field', { groups: [group], keys: [{ key }], maxBodybytes: 1 }, ''],
    [
      'a misspelt upstream field',
      { groups: [{ ...group, upstreams: [{ baseURL: 'https://x' }] }], keys: [{ key }] },
      'groups[0].upstreams[0]',
    ],
    [
      'an upstream URL that is not http(s)',
      { groups: [{ ...group, upstreams: [{ baseUrl: 'ftp://x' }] }], keys: [{ key }] },
      'groups[0].upstreams[0].baseUrl',
    ],
    [
      'an unknown protocol',
      { groups: [{ ...group, protocol: 'cohere' }], keys: [{ key }] },
      'groups[0].protocol',
    ],
    [
      'a group with no model',
      { groups: [{ ...group, models: [] }], keys: [{ key }] },
      'groups[0].models',
    ],
    ['a bad group id', { groups: [{ ...group, id: 'a/b' }], keys: [{ key }] }, 'groups[0].id'],
    ['no groups', { keys: [{ key }] }, 'groups'],
    ['no keys and no database', { groups: [group] }, 'keys'],
    ['a short key', { groups: [group], keys: [{ key: 'sk-short' }] }, 'keys[0].key'],
    [
      'both key and keyHash',
      { groups: [group], keys: [{ key, keyHash: `sha256:${'0'.repeat(64)}` }] },
      'keys[0]',
    ],
    ['neither key nor keyHash', { groups: [group], keys: [{ name: 'x' }] }, 'keys[0]'],
    [
      'both apiKey and apiKeys',
      {
        groups: [{ ...group, upstreams: [{ baseUrl: 'https://x', apiKey: 'a', apiKeys: ['b'] }] }],
        keys: [{ key }],
      },
      'groups[0].upstreams[0].apiKeys',
    ],
    [
      'a date that is not ISO',
      { groups: [group], keys: [{ key, expiresAt: 'tomorrow' }] },
      'keys[0].expiresAt',
    ],
    [
      'too many attempts',
      { groups: [{ ...group, retry: { attempts: 50 } }], keys: [{ key }] },
      'groups[0].retry.attempts',
    ],
    [
      'circuitBreaker: true',
      { groups: [{ ...group, circuitBreaker: true }], keys: [{ key }] },
      'groups[0].circuitBreaker',
    ],
    [
      'an unknown reasoning field',
      {
        groups: [
          {
            ...group,
            models: [{ name: 'a', profile: { reasoning: { kind: 'effort', efforts: ['huge'] } } }],
          },
        ],
        keys: [{ key }],
      },
      'groups[0].models[0].profile.reasoning.efforts[0]',
    ],
    ['a fractional integer', { groups: [group], keys: [{ key }], maxInFlight: 1.5 }, 'maxInFlight'],
    [
      'a Redis URL that is not redis://',
      { groups: [group], keys: [{ key }], state: { redis: 'http://x' } },
      'state.redis',
    ],
    ['a bad prefix', { groups: [group], keys: [{ key }], state: { prefix: 'MG' } }, 'state.prefix'],
  ]

  it.each(refused)(
    'refuses %s, in the schema and in the gateway, at the same path',
    (_, config, path) => {
      expect(schemaErrorPaths(config)).toContain(path)
      const issues = configError({ ...(config as object), ...stateParts(config) }).issues
      expect(issues.map((issue) => issue.path)).toContain(path)
    },
  )
})

/** The plug-ins the CLI would make of a config's `state`, so that the gateway checks the rest. */
function stateParts(config: unknown): object {
  const state = (config as { state?: object }).state
  return state === undefined ? {} : connectedState
}
