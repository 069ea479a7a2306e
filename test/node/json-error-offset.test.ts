import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonErrorOffset } from '../../src/node/cli/json-error-offset'
import { ConfigFileError, parseConfigText } from '../../src/node/cli/read-config-file'

/** Valid JSON, then broken the ways hand-edited files break: a character put in, taken out, or the end cut off. */
const brokenJson = fc
  .tuple(
    fc.json({ maxDepth: 4 }),
    fc.nat(),
    fc.constantFrom('insert', 'delete', 'truncate', 'none'),
    fc.constantFrom(...'{}[],:"\\ \n\t0-.eE+tfnu/\'x\u0001'.split('')),
  )
  .map(([text, at, edit, char]) => {
    const position = text.length === 0 ? 0 : at % text.length
    if (edit === 'insert') return text.slice(0, position) + char + text.slice(position)
    if (edit === 'delete') return text.slice(0, position) + text.slice(position + 1)
    if (edit === 'truncate') return text.slice(0, position)
    return text
  })

function parse(text: string): { ok: true } | { ok: false; position: number | undefined } {
  try {
    JSON.parse(text)
    return { ok: true }
  } catch (error) {
    const position = /at position (\d+)/.exec((error as Error).message)?.[1]
    return { ok: false, position: position === undefined ? undefined : Number(position) }
  }
}

describe('jsonErrorOffset', () => {
  it('agrees with JSON.parse on what is valid, and on the position wherever it names one', () => {
    fc.assert(
      fc.property(brokenJson, (text) => {
        const parsed = parse(text)
        const offset = jsonErrorOffset(text)
        if (parsed.ok) expect(offset).toBeUndefined()
        else {
          expect(offset).toBeGreaterThanOrEqual(0)
          expect(offset).toBeLessThanOrEqual(text.length)
          if (parsed.position !== undefined) expect(offset).toBe(parsed.position)
        }
      }),
      { numRuns: 5000 },
    )
  })

  it('agrees with JSON.parse on any short string', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(...'{}[],:"\\ 0-1.e+tfrulsna'.split('')),
          maxLength: 12,
        }),
        (text) => {
          const parsed = parse(text)
          expect(jsonErrorOffset(text) === undefined).toBe(parsed.ok)
        },
      ),
      { numRuns: 5000 },
    )
  })

  it('finds what JSON.parse does not place: an unexpected token, an early end', () => {
    expect(jsonErrorOffset('{"a": x}')).toBe(6)
    expect(jsonErrorOffset('[1,]')).toBe(3)
    expect(jsonErrorOffset('{"a": tru}')).toBe(9)
    expect(jsonErrorOffset('{"a": [1, 2')).toBe(11)
    expect(jsonErrorOffset('')).toBe(0)
  })

  it('measures any nesting without recursion', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(199_999)
    expect(jsonErrorOffset(deep)).toBe(deep.length)
    expect(jsonErrorOffset('['.repeat(100_000) + ']'.repeat(100_000))).toBeUndefined()
  })
})

describe('parseConfigText', () => {
  function messageOf(text: string): string {
    try {
      parseConfigText(text, 'gateway.config.json')
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigFileError)
      return (error as Error).message
    }
    throw new Error('parsed')
  }

  it('names the line and column, and shows the line with a caret under the place', () => {
    const text = ['{', '  "groups": [', '    { "id": "a" }', '    { "id": "b" }', '  ]', '}'].join(
      '\n',
    )
    expect(messageOf(text)).toBe(
      [
        `gateway.config.json:4:5: invalid JSON: Expected ',' or ']' after array element`,
        '  4 |     { "id": "b" }',
        '    |     ^',
      ].join('\n'),
    )
  })

  it('places an unexpected token that JSON.parse does not, and says why it is there', () => {
    expect(messageOf('{\n  "keys": [] // the demo\n}')).toBe(
      [
        `gateway.config.json:2:14: invalid JSON: Expected ',' or '}' after property value (JSON has no comments)`,
        '  2 |   "keys": [] // the demo',
        '    |              ^',
      ].join('\n'),
    )
    expect(messageOf('{\r\n\t"keys": [1,],\r\n}')).toBe(
      [
        `gateway.config.json:2:13: invalid JSON: Unexpected token ']' (JSON allows no comma after the last item)`,
        '  2 | \t"keys": [1,],',
        '    | \t           ^',
      ].join('\n'),
    )
    expect(messageOf("{'keys': []}")).toContain(
      ":1:2: invalid JSON: Expected property name or '}' (JSON strings take double quotes)",
    )
  })

  it('places the end of a file cut short', () => {
    expect(messageOf('{\n  "keys": [\n')).toBe(
      [
        'gateway.config.json:3:1: invalid JSON: Unexpected end of JSON input',
        '  3 | ',
        '    | ^',
      ].join('\n'),
    )
  })

  it('cuts a long line around the column', () => {
    const text = `{"a": "${'x'.repeat(300)}", "b": nope}`
    const [first, line, caret] = messageOf(text).split('\n')
    expect(first).toBe(`gateway.config.json:1:317: invalid JSON: Unexpected token 'o'`)
    expect(line!.length).toBeLessThan(120)
    expect(line).toContain('"b": nope')
    expect(line![caret!.indexOf('^')]).toBe('o') // "n" starts a null; "o" cannot go on
  })

  it('skips a byte order mark', () => {
    expect(parseConfigText('\uFEFF{"keys": []}', 'x.json')).toEqual({ keys: [] })
  })
})
