import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatTraceparent, parseTraceparent } from '../../src/observability/trace-context'

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length })

describe('W3C traceparent', () => {
  it('reads the example of the spec and writes it back', () => {
    const header = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
    const parsed = parseTraceparent(header)
    expect(parsed).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    })
    expect(formatTraceparent(parsed!)).toBe(header)
  })

  it('refuses invalid headers: all-zero ids, version ff, upper case, extra fields in version 00', () => {
    for (const header of [
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01',
      '',
      null,
    ]) {
      expect(parseTraceparent(header)).toBeUndefined()
    }
    // A future version may carry more fields.
    expect(
      parseTraceparent('01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra'),
    ).toBeDefined()
  })

  it('never throws on any client text, and valid headers round-trip', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (header) => {
        const parsed = parseTraceparent(header)
        if (parsed !== undefined) expect(parsed.traceId).toMatch(/^[\da-f]{32}$/)
      }),
    )
    fc.assert(
      fc.property(hex(32), hex(16), fc.integer({ min: 0, max: 255 }), (traceId, spanId, flags) => {
        const header = formatTraceparent({ traceId, spanId, traceFlags: flags })
        if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) expect(header).toBeUndefined()
        else expect(parseTraceparent(header)).toEqual({ traceId, spanId, traceFlags: flags })
      }),
    )
  })
})
