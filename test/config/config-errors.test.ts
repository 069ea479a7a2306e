import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findNearMisses, nearestKey } from '../../src/config/near-miss'
import { readStateConfig } from '../../src/node/cli/state'
import { configError } from '../helpers/config-error'

const key = 'sk-config-errors-0123456789'
const group = {
  id: 'demo',
  protocol: 'openai',
  models: ['demo-echo'],
  upstreams: [{ provider: 'mock' }],
}

function issuesOf(config: unknown): { path: string; message: string }[] {
  return configError(config).issues.map((issue) => ({ ...issue }))
}

describe('config errors: did you mean', () => {
  it('names the field a misspelt one was meant to be, and does not also call that one missing', () => {
    const issues = issuesOf({
      groups: [
        { ...group, upstreams: [{ baseURL: 'https://api.example.com/v1', api_key: 'sk-x' }] },
      ],
      keys: [{ key }],
      maxBodybytes: 1024,
    })
    expect(issues).toEqual([
      {
        path: 'groups[0].upstreams[0]',
        message:
          'Unrecognized keys: "baseURL" (did you mean "baseUrl"?), "api_key" (did you mean "apiKey"?)',
      },
      { path: '', message: 'Unrecognized key: "maxBodybytes" (did you mean "maxBodyBytes"?)' },
    ])
  })

  it('folds a misspelt required top-level field into its suggestion (`group` for `groups`)', () => {
    expect(issuesOf({ group: [group], keys: [{ key }] })).toEqual([
      { path: '', message: 'Unrecognized key: "group" (did you mean "groups"?)' },
    ])
  })

  it('still reports a missing field that the unknown one is not near', () => {
    const issues = issuesOf({
      groups: [{ ...group, upstreams: [{ url: 'https://x' }] }],
      keys: [{ key }],
    })
    expect(issues).toEqual([
      { path: 'groups[0].upstreams[0].baseUrl', message: 'expected an http(s) URL' },
      { path: 'groups[0].upstreams[0]', message: 'Unrecognized key: "url"' },
    ])
  })

  it('suggests inside model profiles, nested objects and the state section', () => {
    const issues = issuesOf({
      groups: [
        {
          ...group,
          models: [{ name: 'a', profile: { contextwindow: 1000 } }],
          retry: { attempt: 2 },
          circuitBreaker: { cooldown_ms: 5 },
        },
      ],
      keys: [{ key, limits: { requestsPerMinut: 5 } }],
      stat: {},
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        {
          path: 'groups[0].models[0].profile',
          message: 'Unrecognized key: "contextwindow" (did you mean "contextWindow"?)',
        },
        {
          path: 'groups[0].retry',
          message: 'Unrecognized key: "attempt" (did you mean "attempts"?)',
        },
        {
          path: 'groups[0].circuitBreaker',
          message: 'Unrecognized key: "cooldown_ms" (did you mean "cooldownMs"?)',
        },
        {
          path: 'keys[0].limits',
          message: 'Unrecognized key: "requestsPerMinut" (did you mean "requestsPerMinute"?)',
        },
        { path: '', message: 'Unrecognized key: "stat" (did you mean "state"?)' },
      ]),
    )
    expect(() => readStateConfig({ prefx: 'mg' }, {})).toThrow(
      'state: Unrecognized key: "prefx" (did you mean "prefix"?)',
    )
  })

  it('never suggests a field the object already has, nor one field for two', () => {
    expect([...findNearMisses(['baseURL'], ['baseUrl'], { baseUrl: 'x', baseURL: 'y' })]).toEqual(
      [],
    )
    expect([...findNearMisses(['apikey', 'API_KEY'], ['apiKey'], {})]).toEqual([
      ['apikey', 'apiKey'],
    ])
  })

  it('suggests any spelling that differs only in case, "_" and "-", or by one edit', () => {
    const known = ['baseUrl', 'apiKey', 'maxConcurrent', 'upstreams', 'weight', 'headers']
    const variant = fc.oneof(
      fc
        .tuple(fc.constantFrom(...known), fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }))
        .map(([name, upper]) => {
          const written = [...name].map((c, at) => (upper[at] ? c.toUpperCase() : c.toLowerCase()))
          return [name, written.join('')] as const
        }),
      fc.tuple(fc.constantFrom(...known), fc.nat()).map(([name, at]) => {
        const cut = 1 + (at % (name.length - 1))
        return [name, `${name.slice(0, cut)}_${name.slice(cut)}`] as const
      }),
      fc.tuple(fc.constantFrom(...known), fc.nat()).map(([name, at]) => {
        const drop = at % name.length
        return [name, name.slice(0, drop) + name.slice(drop + 1)] as const
      }),
    )
    fc.assert(
      fc.property(variant, ([name, written]) => {
        fc.pre(written !== name)
        expect(nearestKey(written, known)).toBe(name)
      }),
    )
  })

  it('suggests nothing far from every known field', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), (written) => {
        const near = nearestKey(written, ['upstreamTimeoutMs'])
        if (near !== undefined)
          expect(distance(written.toLowerCase(), 'upstreamtimeoutms')).toBeLessThanOrEqual(2)
      }),
    )
    expect(nearestKey('timeout', ['upstreamTimeoutMs', 'streamIdleTimeoutMs'])).toBeUndefined()
    expect(nearestKey('id', ['ip', 'name'])).toBe('ip')
    expect(nearestKey('xy', ['id'])).toBeUndefined()
  })
})

describe('config errors: every problem in one pass', () => {
  it('reports a bad fallback together with an unrelated bad field', () => {
    const issues = issuesOf({
      groups: [
        { ...group, models: [{ name: 'a', fallbacks: ['nowhere/b'] }] },
        { ...group, id: 'other', upstreams: [{ baseUrl: 'ftp://x' }] },
      ],
      keys: [{ key }],
      maxBodyBytes: -1,
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'maxBodyBytes', message: 'Too small: expected number to be >0' },
        { path: 'groups[1].upstreams[0].baseUrl', message: 'expected an http(s) URL' },
        { path: 'groups[0].models[0].fallbacks[0]', message: 'unknown group "nowhere"' },
      ]),
    )
    expect(issues).toHaveLength(3)
  })

  it('reports a malformed fallback once, with the checks across fields beside it', () => {
    const issues = issuesOf({
      groups: [{ ...group, models: [{ name: 'a', fallbacks: ['no-slash'] }, 'a'] }, group],
      keys: [{ key, groups: ['nope'] }],
    })
    expect(issues).toEqual([
      { path: 'groups[0].models[0].fallbacks[0]', message: 'expected "<group>/<model>"' },
      { path: 'groups[0].models[1]', message: 'duplicate model "a"' },
      { path: 'groups[1].id', message: 'duplicate group id "demo"' },
      { path: 'keys[0].groups[0]', message: 'unknown group "nope"' },
    ])
  })

  it('checks "exactly one of key or keyHash" and profile limits beside the fields\' own errors', () => {
    const issues = issuesOf({
      groups: [
        {
          ...group,
          models: [
            {
              name: 'a',
              profile: {
                maxTemperature: 9,
                contextWindow: 10,
                maxOutputTokens: 20,
                reasoning: { kind: 'budget', min: 5, max: 2, canDisable: 1 },
              },
            },
          ],
        },
      ],
      keys: [{ key: 'sk-short', keyHash: 'sha256:00' }],
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'keys[0].key', message: 'keys are at least 20 characters long' },
        { path: 'keys[0].keyHash', message: 'expected "sha256:" and 64 hex digits' },
        { path: 'keys[0]', message: 'give exactly one of "key" or "keyHash"' },
        {
          path: 'groups[0].models[0].profile.maxTemperature',
          message: 'Too big: expected number to be <=2',
        },
        {
          path: 'groups[0].models[0].profile.maxOutputTokens',
          message: '"maxOutputTokens" must not exceed "contextWindow"',
        },
        {
          path: 'groups[0].models[0].profile.reasoning.canDisable',
          message: 'Invalid input: expected boolean, received number',
        },
        {
          path: 'groups[0].models[0].profile.reasoning.min',
          message: '"min" must not exceed "max"',
        },
      ]),
    )
    expect(issues).toHaveLength(7)
  })

  it('reads fields of the wrong type without throwing, leaving them to their own issue', () => {
    const issues = issuesOf({
      groups: [
        { id: 5, protocol: 'openai', models: 'm', upstreams: [null] },
        { ...group, models: [{ name: 7, fallbacks: 'x' }] },
      ],
      keys: [{ key, groups: 'demo', id: 3 }, 'sk-not-an-object'],
      state: 'redis://x',
    })
    expect(issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([
        'groups[0].id',
        'groups[0].models',
        'groups[0].upstreams[0]',
        'groups[1].models[0].name',
        'groups[1].models[0].fallbacks',
        'keys[0].groups',
        'keys[0].id',
        'keys[1]',
        'state',
      ]),
    )
    expect(issues.every((issue) => !issue.message.includes('TypeError'))).toBe(true)
  })

  it('answers an array config with one issue, as before', () => {
    expect(issuesOf([])).toEqual([
      { path: '', message: 'Invalid input: expected object, received array' },
    ])
  })
})

/** Optimal string alignment distance (the test's own, to check the module's). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i += 1)
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      rows[i]![j] = Math.min(
        rows[i - 1]![j]! + 1,
        rows[i]![j - 1]! + 1,
        rows[i - 1]![j - 1]! + cost,
      )
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        rows[i]![j] = Math.min(rows[i]![j]!, rows[i - 2]![j - 2]! + 1)
    }
  return rows[a.length]![b.length]!
}
