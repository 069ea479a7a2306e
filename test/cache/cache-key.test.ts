import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cacheControlOf, cacheKeyText, scopeOf } from '../../src/cache/cache-key'
import { canonicalBody, canonicalJson } from '../../src/cache/canonical-json'
import { createMemoryResponseCache } from '../../src/cache/cache-store'

/** JSON values: objects, arrays and every kind of scalar, nested. */
const json = fc.jsonValue({ maxDepth: 4 })

/** The same value with every object's members in a shuffled order. */
function shuffled(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => shuffled(item, seed + index))
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value as Record<string, unknown>)
  const order = entries
    .map((entry, index) => ({ entry, rank: Math.sin(seed * 7919 + index * 104729) }))
    .sort((a, b) => a.rank - b.rank)
  return Object.fromEntries(
    order.map(({ entry: [name, item] }) => [name, shuffled(item, seed + 1)]),
  )
}

/** Every path to a scalar in a value, with the scalar. */
function scalarPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => scalarPaths(item, [...path, index]))
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, item]) => scalarPaths(item, [...path, name]))
  }
  return [path]
}

function changedAt(value: unknown, path: (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next
  const [head, ...rest] = path
  if (Array.isArray(value))
    return value.map((item, index) => (index === head ? changedAt(item, rest, next) : item))
  const record = value as Record<string, unknown>
  return { ...record, [head!]: changedAt(record[head!], rest, next) }
}

describe('canonical JSON', () => {
  it('is equal for any reordering of object members, and parses back to the same value', () => {
    fc.assert(
      fc.property(json, fc.integer(), (value, seed) => {
        expect(canonicalJson(shuffled(value, seed))).toBe(canonicalJson(value))
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
  })

  it('differs for any changed scalar', () => {
    fc.assert(
      fc.property(
        json,
        fc.nat(),
        fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null)),
        (value, pick, next) => {
          const paths = scalarPaths(value)
          fc.pre(paths.length > 0)
          const path = paths[pick % paths.length]!
          const changed = changedAt(value, path, next)
          fc.pre(JSON.stringify(changed) !== JSON.stringify(value))
          expect(canonicalJson(changed)).not.toBe(canonicalJson(value))
        },
      ),
    )
  })

  it('leaves out only the members that cannot change the answer', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 }
    const noisy = {
      ...body,
      stream: true,
      stream_options: { include_usage: true },
      user: 'u1',
      metadata: { user_id: 'x' },
    }
    expect(canonicalBody(noisy)).toBe(canonicalBody(body))
    expect(canonicalBody({ ...body, temperature: 0.3 })).not.toBe(canonicalBody(body))
    expect(canonicalBody({ ...body, unknown_field: 1 })).not.toBe(canonicalBody(body))
  })
})

describe('the key', () => {
  const headers = { get: () => null, has: () => false }
  const parts = {
    scope: 'k:key-1',
    protocol: 'openai' as const,
    group: 'g',
    upstreamModel: 'gpt',
    body: { model: 'gpt', messages: [] },
    headers,
  }
  it('names the scope, protocol, group and model', () => {
    const base = cacheKeyText(parts)
    expect(cacheKeyText({ ...parts, scope: 'k:key-2' })).not.toBe(base)
    expect(cacheKeyText({ ...parts, protocol: 'anthropic' })).not.toBe(base)
    expect(cacheKeyText({ ...parts, group: 'h' })).not.toBe(base)
    expect(cacheKeyText({ ...parts, upstreamModel: 'gpt-2' })).not.toBe(base)
  })

  it('is never wider than the group asks', () => {
    const key = { id: 'key-1' } as Parameters<typeof scopeOf>[1]
    expect(scopeOf({ ttlSeconds: 1 }, key, { id: 't' })).toBe('k:key-1')
    expect(scopeOf({ ttlSeconds: 1, scope: 'team' }, key, { id: 't' })).toBe('t:t')
    expect(scopeOf({ ttlSeconds: 1, scope: 'team' }, key, undefined)).toBe('k:key-1')
    expect(scopeOf({ ttlSeconds: 1, scope: 'organisation' }, key, undefined)).toBe('o')
  })

  it('reads cache-control', () => {
    const of = (value: string) => cacheControlOf({ get: () => value, has: () => true })
    expect(of('no-store')).toBe('bypass')
    expect(of('max-age=0, No-Cache')).toBe('refresh')
    expect(of('max-age=60')).toBe('use')
  })
})

describe('the memory store', () => {
  it('keeps its bounds, oldest out, and expires entries', () => {
    let now = 0
    const store = createMemoryResponseCache({ maxEntries: 2, maxBytes: 100, now: () => now })
    store.set('a', 'x'.repeat(10), 1000)
    store.set('b', 'y'.repeat(10), 1000)
    store.set('c', 'z'.repeat(10), 1000)
    expect(store.get('a')).toBeUndefined()
    expect(store.get('b')).toBe('y'.repeat(10))
    store.set('d', 'w'.repeat(40), 1000)
    // 80 bytes more: the oldest goes until they fit.
    expect(store.get('b')).toBeUndefined()
    expect(store.size).toBe(2)
    expect(store.bytes).toBe(100)
    now = 1000
    expect(store.get('d')).toBeUndefined()
    expect(store.size).toBe(1)
  })
})
