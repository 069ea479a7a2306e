import { isJsonObject } from '../internal/json'
import { issue, kindOf, prefixed, typeIssue, wrongType, type ShapeIssue } from './shape-issue'
import { Shape, type Check, type Infer, type ShapeResult } from './shape'

/** An array shape, with zod's length check. */
export class ArrayShape<T> extends Shape<T[]> {
  private readonly item: Shape<T>

  constructor(item: Shape<T>, minItems?: { length: number; message: string | undefined }) {
    super((value) => {
      if (!Array.isArray(value)) return typeIssue('array', value)
      if (minItems !== undefined && value.length < minItems.length) {
        return issue(
          minItems.message ?? `Too small: expected array to have >=${minItems.length} items`,
        )
      }
      const check = item.check
      for (let index = 0; index < value.length; index += 1) {
        const found = check(value[index])
        if (found !== undefined) return prefixed(index, found)
      }
      return undefined
    }, 'array')
    this.item = item
  }

  /** At least `length` items. */
  min(length: number, message?: string): ArrayShape<T> {
    return new ArrayShape(this.item, { length, message })
  }
}

type Fields = Record<string, Shape<unknown>>
type OptionalKeys<F extends Fields> = {
  [Key in keyof F]: undefined extends Infer<F[Key]> ? Key : never
}[keyof F]
type Simplify<T> = { [Key in keyof T]: T[Key] } & {}
/** A loose object's type: its fields (optional where they may be missing), and anything else. */
export type LooseObject<F extends Fields> = Simplify<
  { [Key in Exclude<keyof F, OptionalKeys<F>>]: Infer<F[Key]> } & {
    [Key in OptionalKeys<F>]?: Infer<F[Key]>
  }
> & { [member: string]: unknown }

/** An object with these members (checked in order), whatever else it holds. */
export function looseObject<F extends Fields>(fields: F): Shape<LooseObject<F>> {
  const entries = Object.entries(fields).map(([name, shape]) => [name, shape.check] as const)
  return new Shape((value) => {
    if (!isJsonObject(value)) return typeIssue('object', value)
    for (const [name, check] of entries) {
      // Own members only: a body is no lookup table for inherited ones.
      const member = Object.hasOwn(value, name) ? value[name] : undefined // lookup-safe: own
      const found = check(member)
      if (found !== undefined) return prefixed(name, found)
    }
    return undefined
  }, 'object')
}

/**
 * A value that fits one of the shapes. When it fits none, the issue is that of the one shape whose
 * type it has (an array's bad item, as zod reports it), else "Invalid input".
 */
export function union<const S extends readonly Shape<unknown>[]>(
  shapes: S,
): Shape<Infer<S[number]>> {
  return new Shape((value) => {
    // Only the shapes of the value's own type can take it: the others are not run at all.
    const kind = kindOf(value)
    let typed: ShapeIssue | undefined
    let typedCount = 0
    for (const shape of shapes) {
      if (shape.kind !== undefined && shape.kind !== kind) continue
      const found = shape.check(value)
      if (found === undefined) return undefined
      if (found.path.length === 0 && wrongType.has(found)) continue
      typed = found
      typedCount += 1
    }
    return typedCount === 1 ? typed : issue('Invalid input')
  })
}

/**
 * Objects told apart by one member's value: a value is checked against the shape its `key` names
 * (`options` pairs each value with its shape), and one naming none is an issue at `key`.
 */
export function discriminatedUnion<
  const O extends ReadonlyArray<readonly [string, Shape<unknown>]>,
>(key: string, options: O): Shape<Infer<O[number][1]>> {
  const byTag = new Map<unknown, Check>(options.map(([tag, option]) => [tag, option.check]))
  return new Shape((value) => {
    if (!isJsonObject(value)) return typeIssue('object', value)
    const check = byTag.get(Object.hasOwn(value, key) ? value[key] : undefined) // lookup-safe: own
    if (check === undefined) return { path: [key], message: 'Invalid input' }
    return check(value)
  }, 'object')
}

/** A JSON object whose every member is a string. */
export function stringRecord(): Shape<Record<string, string>> {
  return new Shape((value) => {
    if (!isJsonObject(value)) return typeIssue('record', value)
    for (const [name, member] of Object.entries(value)) {
      if (typeof member !== 'string') return prefixed(name, typeIssue('string', member))
    }
    return undefined
  }, 'object')
}

/** A shape that runs `prepare` first and checks, and hands out, what it returns. */
class PreparedShape<T> extends Shape<T> {
  private readonly prepare: (value: unknown) => unknown
  private readonly inner: Shape<T>

  constructor(prepare: (value: unknown) => unknown, inner: Shape<T>) {
    super((value) => inner.check(prepare(value)))
    this.prepare = prepare
    this.inner = inner
  }

  override safeParse(value: unknown): ShapeResult<T> {
    return this.inner.safeParse(this.prepare(value))
  }
}

/** Runs `prepare` first, then checks what it returns (Gemini's snake_case normalisation). */
export function preprocess<T>(prepare: (value: unknown) => unknown, inner: Shape<T>): Shape<T> {
  return new PreparedShape(prepare, inner)
}
