import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { headerText } from '../../src/http/header-text'

describe('headerText', () => {
  it('keeps printable ASCII and percent-encodes the rest as UTF-8', () => {
    expect(headerText('web_search, mcp')).toBe('web_search, mcp')
    expect(headerText('a\r\nb%é\ud83d\ude00')).toBe('a%0D%0Ab%25%C3%A9%F0%9F%98%80')
    expect(headerText('\ud83d')).toBe('%EF%BF%BD')
  })

  it('cuts long values', () => {
    expect(headerText('x'.repeat(5000))).toBe(`${'x'.repeat(1021)}...`)
  })

  it('always yields a value Headers accepts, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (value) => {
        const text = headerText(value)
        expect(() => new Headers({ 'x-test': text })).not.toThrow()
        expect(new Headers({ 'x-test': text }).get('x-test')).toBe(text.trim())
        expect(text.length).toBeLessThanOrEqual(1024)
      }),
      { seed: 7, numRuns: 500 },
    )
  })
})
