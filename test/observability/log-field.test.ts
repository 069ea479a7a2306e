import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { logField } from '../../src/observability/log-field'

/** A character that must never appear raw in a log line: controls, format, separators but space. */
const unsafe = /[\p{C}]|[^\P{Z} ]/u

describe('logField', () => {
  it('leaves visible text as it is, in any script', () => {
    for (const value of [
      'gpt-4o-mini',
      'sk-…CDEF',
      '/v1/chat/completions',
      'модель-7b',
      '通义千问',
    ])
      expect(logField(value)).toBe(value)
  })

  it('quotes a value with a space, a quote or nothing in it, so it stays one field', () => {
    expect(logField('a key=sk-…0000')).toBe('"a key=sk-…0000"')
    expect(logField('say "hi"')).toBe('"say \\"hi\\""')
    expect(logField('back\\slash')).toBe('"back\\\\slash"')
    expect(logField('')).toBe('""')
  })

  it('escapes line breaks, ANSI escapes, bidi overrides and lone surrogates', () => {
    expect(logField('x\n2025-01-01T00:00:00.000Z req_1 200 POST /v1/chat/completions')).toBe(
      '"x\\n2025-01-01T00:00:00.000Z req_1 200 POST /v1/chat/completions"',
    )
    expect(logField('\u001b[31mred\u001b[0m')).toBe('"\\u001b[31mred\\u001b[0m"')
    expect(logField('a\r\u2028b\u2029')).toBe('"a\\r\\u2028b\\u2029"')
    expect(logField('evil\u202egnp.exe')).toBe('"evil\\u202egnp.exe"')
    expect(logField('\ud800x')).toBe('"\\ud800x"')
    expect(logField('\u{e0001}tag')).toBe('"\\u{e0001}tag"')
  })

  it('never lets any code point through raw that could break or disguise a line', () => {
    let checked = 0
    for (let code = 0; code <= 0x10ffff; code += 1) {
      const value = `a${String.fromCodePoint(code)}b`
      const field = logField(value)
      if (unsafe.test(field)) throw new Error(`U+${code.toString(16)} passed raw: ${field}`)
      // A bare field holds no space and no quote: it can only be one field.
      if (!field.startsWith('"') && /[ "]/.test(field)) throw new Error(`bare field: ${field}`)
      checked += 1
    }
    expect(checked).toBe(0x110000)
  })
})

describe('logField on any text', () => {
  /** The rule without the ASCII shortcut: bare only when no character needs quoting. */
  const needsQuotes = /[\p{C}\p{Z}"\\]/u

  it('is bare exactly when no character needs quoting, whichever check decides it', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.string({
        unit: fc.constantFrom('a', '…', ' ', '"', '\\', '\u0085', '\u00a0', 'é'),
        maxLength: 12,
      }),
    )
    fc.assert(
      fc.property(text, (value) => {
        const bare = value !== '' && !needsQuotes.test(value)
        if (bare) expect(logField(value)).toBe(value)
        else expect(logField(value)).toMatch(/^".*"$/s)
      }),
      { numRuns: 3000 },
    )
  })
})
