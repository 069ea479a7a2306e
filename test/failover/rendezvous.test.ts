import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hashText, rendezvousScore } from '../../src/failover/rendezvous'

function pick(session: string, upstreams: readonly { id: string; weight: number }[]): string {
  const sessionHash = hashText(session)
  let best = upstreams[0]!
  let bestScore = -Infinity
  for (const upstream of upstreams) {
    const score = rendezvousScore(sessionHash, hashText(upstream.id), upstream.weight)
    if (score > bestScore) {
      best = upstream
      bestScore = score
    }
  }
  return best.id
}

const sessions = Array.from({ length: 6_000 }, (_, index) => `session-${index}`)
const three = ['a', 'b', 'c'].map((id) => ({ id, weight: 1 }))

describe('rendezvous hashing', () => {
  it('spreads sessions evenly, and by weight', () => {
    const counts = new Map<string, number>()
    for (const session of sessions) {
      const id = pick(session, three)
      counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    for (const id of ['a', 'b', 'c']) {
      expect(counts.get(id)!).toBeGreaterThan(1_800)
      expect(counts.get(id)!).toBeLessThan(2_200)
    }
    const weighted = [
      { id: 'a', weight: 2 },
      { id: 'b', weight: 1 },
    ]
    const heavy = sessions.filter((session) => pick(session, weighted) === 'a').length
    expect(heavy / sessions.length).toBeGreaterThan(0.62)
    expect(heavy / sessions.length).toBeLessThan(0.71)
  })

  it('adding an upstream moves only the sessions that now rank it first (about 1/n)', () => {
    const four = [...three, { id: 'd', weight: 1 }]
    let moved = 0
    for (const session of sessions) {
      const before = pick(session, three)
      const after = pick(session, four)
      if (before !== after) {
        moved += 1
        expect(after).toBe('d')
      }
    }
    expect(moved / sessions.length).toBeGreaterThan(0.2)
    expect(moved / sessions.length).toBeLessThan(0.3)
  })

  it('removing an upstream moves only its own sessions', () => {
    fc.assert(
      fc.property(fc.string(), (session) => {
        const before = pick(session, three)
        const without = three.filter((upstream) => upstream.id !== 'b')
        const after = pick(session, without)
        return before === 'b' || after === before
      }),
    )
  })

  it('hashes are stable 32-bit unsigned integers', () => {
    expect(hashText('')).toBe(0x811c9dc5)
    expect(hashText('a')).toBe(0xe40c292c)
    fc.assert(
      fc.property(fc.string(), (text) => {
        const hash = hashText(text)
        return Number.isInteger(hash) && hash >= 0 && hash < 2 ** 32 && hash === hashText(text)
      }),
    )
  })
})
