import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoTime } from '../../src/node/cli/request-log'

/** The range of a JavaScript `Date`, in milliseconds either side of the epoch. */
const maxDate = 8.64e15

describe('isoTime (the request log line time)', () => {
  it('reads as toISOString for any time, in any order (the kept second never leaks)', () => {
    const time = fc.oneof(
      fc.integer({ min: -maxDate, max: maxDate }),
      // Close together, as lines come: the same second, the next one, a few apart.
      fc.integer({ min: 1_764_000_000_000, max: 1_764_000_005_000 }),
      fc.double({ min: -maxDate, max: maxDate, noNaN: true }),
    )
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(isoTime(ms)).toBe(new Date(Math.floor(ms)).toISOString())
      }),
      { numRuns: 2000 },
    )
  })

  it('pads the milliseconds and passes from one second to the next', () => {
    expect(isoTime(Date.UTC(2026, 10, 27, 6, 20, 41, 7))).toBe('2026-11-27T06:20:41.007Z')
    expect(isoTime(Date.UTC(2026, 10, 27, 6, 20, 41, 70))).toBe('2026-11-27T06:20:41.070Z')
    expect(isoTime(Date.UTC(2026, 10, 27, 6, 20, 41, 999))).toBe('2026-11-27T06:20:41.999Z')
    expect(isoTime(Date.UTC(2026, 10, 27, 6, 20, 42, 0))).toBe('2026-11-27T06:20:42.000Z')
    expect(isoTime(-1)).toBe('1969-12-31T23:59:59.999Z')
    expect(isoTime(maxDate)).toBe('+275760-09-13T00:00:00.000Z')
  })
})
