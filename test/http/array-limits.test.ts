import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../src/errors'
import { checkArrayLimits, type ArrayLimit } from '../../src/http/array-limits'

/** The walk as first written (a path split and a param string per member visited): the reference. */
function reference(value: unknown, limits: readonly ArrayLimit[]): string | undefined {
  const isObject = (item: unknown): item is Record<string, unknown> =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
  const visit = (item: unknown, steps: string[], step: number, at: string, max: number) => {
    if (step === steps.length) return
    const raw = steps[step]!
    const each = raw.endsWith('[]')
    const name = each ? raw.slice(0, -2) : raw
    if (!isObject(item) || !Object.hasOwn(item, name)) return
    const member = item[name]
    const param = at === '' ? name : `${at}.${name}`
    if (!Array.isArray(member)) return visit(member, steps, step + 1, param, max)
    if (step === steps.length - 1 && member.length > max) throw new Error(param)
    if (!each) return
    member.forEach((element, index) => visit(element, steps, step + 1, `${param}[${index}]`, max))
  }
  try {
    for (const limit of limits) visit(value, limit.path.split('.'), 0, '', limit.max)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

function refusedParam(value: unknown, limits: readonly ArrayLimit[]): string | undefined {
  try {
    checkArrayLimits(value, limits)
    return undefined
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError)
    return (error as GatewayError).param
  }
}

const limits: ArrayLimit[] = [
  { path: 'messages', max: 3 },
  { path: 'messages[].content', max: 2 },
  { path: 'tools', max: 2 },
  { path: 'contents[].parts[].functionCall.args', max: 1 },
]

describe('checkArrayLimits', () => {
  it('names the same field as the reference walk for any body, or passes it alike', () => {
    const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null))
    const body = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(
          fc.constantFrom(
            'messages',
            'content',
            'tools',
            'contents',
            'parts',
            'functionCall',
            'args',
            'x',
          ),
          tie('node'),
          { maxKeys: 4 },
        ),
      ),
    })).node
    fc.assert(
      fc.property(body, (value) => {
        expect(refusedParam(value, limits)).toBe(reference(value, limits))
      }),
      { numRuns: 3000 },
    )
  })

  it('names the item of a nested array by its index', () => {
    const body = { messages: [{ content: 'a' }, { content: ['x', 'y', 'z'] }] }
    expect(refusedParam(body, limits)).toBe('messages[1].content')
    expect(() => checkArrayLimits(body, limits)).toThrow(
      '`messages[1].content` holds 3 items; the gateway accepts at most 2.',
    )
  })
})
