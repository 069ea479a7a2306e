import { describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { parseGatewayConfig } from '../../src/config/parse-config'
import type { GatewayConfig } from '../../src/config/schema'
import { readStateConfig } from '../../src/node/cli/state'
import { docSamples, type Sample } from './samples'

/**
 * The JSON in the docs: configs go through the gateway's own config parser — the core's for the
 * config, `readStateConfig` for its `state`, as `createGatewayWithState` and the CLI read them —
 * with `${NAME}` set to plausible values; fragments are checked in place inside a minimal config;
 * sample answers must have the fields the gateway answers with.
 */
const samples = docSamples()

/** A value for each `${NAME}` a sample reads: URLs where the name says so, else a plain string. */
function sampleEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [, name] of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    env[name!] = /REDIS/.test(name!)
      ? 'redis://127.0.0.1:6379'
      : /DATABASE|POSTGRES/.test(name!)
        ? 'postgres://127.0.0.1/gateway'
        : `sample-${name!.toLowerCase()}-value`
  }
  return env
}

/** The smallest config a fragment is checked in. */
function minimalConfig(): Record<string, unknown> {
  return {
    groups: [
      {
        id: 'sample',
        protocol: 'openai',
        models: ['sample-model'],
        upstreams: [{ provider: 'mock' }],
      },
    ],
    keys: [{ key: 'sk-docs-sample-0123456789abcdef' }],
  }
}

/**
 * Places a fragment in a minimal config: `.` merges its fields at the top; `keys[]`, `groups[]`,
 * `groups[].models[]` and the like make it the one item of that list.
 */
function placeFragment(fragment: unknown, where: string): Record<string, unknown> {
  const config = minimalConfig()
  if (where === '.') return { ...config, ...(fragment as object) }
  let parent: Record<string, unknown> = config
  const steps = where.split('.')
  steps.forEach((step, index) => {
    const list = /^(\w+)\[\]$/.exec(step)
    if (list === null) throw new Error(`cannot place a fragment at "${where}"`)
    if (index === steps.length - 1) {
      parent[list[1]!] = [fragment]
    } else {
      const items = parent[list[1]!] as Record<string, unknown>[] | undefined
      if (items?.[0] === undefined) throw new Error(`the minimal config has no "${step}"`)
      parent = items[0]
    }
  })
  return config
}

/** Checks a config as the CLI would load it: the core's parser, and the `state` reader. */
function checkConfig(config: Record<string, unknown>, env: Record<string, string>): void {
  const { state, ...core } = config
  parseGatewayConfig({ ...core, env } as GatewayConfig)
  readStateConfig(state, env)
}

/** Every field path of a JSON value (`data[].id`), not its values. */
function fieldPaths(value: unknown, prefix = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) fieldPaths(item, `${prefix}[]`, into)
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`
      into.add(path)
      fieldPaths(item, path, into)
    }
  }
  return into
}

describe('JSON samples in the docs', () => {
  it('has configs to check', () => {
    expect(samples.filter((sample) => sample.kind === 'config').length).toBeGreaterThanOrEqual(5)
  })

  for (const sample of samples) {
    const { file, line, code } = sample.block
    if (sample.kind === 'config') {
      const what =
        sample.fragment === undefined ? 'config' : `config fragment at ${sample.fragment}`
      it(`${file}:${line} is a valid ${what}`, () => {
        const value = JSON.parse(code) as unknown
        const config =
          sample.fragment === undefined
            ? (value as Record<string, unknown>)
            : placeFragment(value, sample.fragment)
        expect(() => checkConfig(config, sampleEnv(code))).not.toThrow()
      })
    } else if (sample.kind === 'json') {
      it(`${file}:${line} is JSON`, () => {
        expect(() => JSON.parse(code)).not.toThrow()
      })
    } else if (sample.kind === 'answer') {
      it(`${file}:${line} has the fields of ${sample.method} ${sample.path}`, async () => {
        const answer = await askGateway(sample)
        expect([...fieldPaths(JSON.parse(code))].sort()).toEqual([...fieldPaths(answer)].sort())
      })
    }
  }

  it('rejects a config the parser rejects, so a passing check means something', () => {
    const config = minimalConfig()
    ;(config['groups'] as Record<string, unknown>[])[0]!['protocl'] = 'openai'
    expect(() => checkConfig(config, {})).toThrow(/protocl/)
    expect(() => checkConfig({ ...config, state: { redis: 'http://x' } }, {})).toThrow()
  })
})

/**
 * What the gateway answers a sample's request, from a gateway whose key has a quota and one limit
 * of each kind the docs show, and a model whose profile is known, so optional fields appear.
 */
async function askGateway(sample: Extract<Sample, { kind: 'answer' }>): Promise<unknown> {
  const key = 'sk-docs-sample-0123456789abcdef'
  const gateway = createGateway({
    groups: [
      { id: 'gpt', protocol: 'openai', models: ['gpt-4o-mini'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [
      {
        key,
        name: 'demo',
        groups: ['gpt'],
        quota: { tokens: 1_000_000 },
        limits: { requestsPerMinute: 60, concurrency: 4, tokensPerDay: 100_000 },
      },
    ],
  })
  try {
    const headers = new Headers({ authorization: `Bearer ${key}` })
    if (sample.header !== undefined) headers.set(sample.header[0], sample.header[1])
    const response = await gateway(
      new Request(`http://gateway.test${sample.path}`, { method: sample.method, headers }),
    )
    expect(response.status).toBe(200)
    return await response.json()
  } finally {
    await gateway.close()
  }
}
