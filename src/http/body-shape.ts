import { isJsonObject } from '../internal/json'

/** A path into a body: member names and array indexes. */
export type ShapePath = Array<string | number>

/** Why a body does not fit its shape: where, and a sentence saying what was expected. */
export type ShapeIssue = { path: ShapePath; message: string }

/** The outcome of `Shape.safeParse`, as zod's: the value itself when it fits, else its issues. */
export type ShapeResult<T> =
  { success: true; data: T } | { success: false; error: { issues: ShapeIssue[] } }

/** How a `superRefine` callback reports an issue, as zod's context does. */
export type RefineContext = {
  addIssue(issue: { code?: string; path?: ShapePath; message: string }): void
}

/** The first issue of a value, its path relative to the value; `undefined` when it fits. */
type Check = (value: unknown) => ShapeIssue | undefined

/** The JSON type a shape takes, named as `kindOf` names it; `undefined` when it takes several. */
type Kind = string | undefined

/** The type a shape checks for. */
export type Infer<S> = S extends Shape<infer T> ? T : never

/**
 * A check of a client request body, with zod's vocabulary and messages but none of its cost: it
 * walks the body once, in place, builds nothing for a body that fits (zod copies every object it
 * passes), and stops at the first issue, the only one the gateway reports (ADR 0015). It covers
 * what the request schemas use; zod stays for the config, checked once.
 */
export class Shape<T> {
  /** The first issue of a value, or `undefined` when it fits. */
  readonly check: Check
  /** The only JSON type it takes, when there is one: a union picks its candidates by it. */
  readonly kind: Kind

  constructor(check: Check, kind?: Kind) {
    this.check = check
    this.kind = kind
  }

  /** The value itself when it fits (never a copy), else its first issue. */
  safeParse(value: unknown): ShapeResult<T> {
    const issue = this.check(value)
    return issue === undefined
      ? { success: true, data: value as T }
      : { success: false, error: { issues: [issue] } }
  }

  /** The value itself when it fits; throws a `TypeError` naming the first issue otherwise. */
  parse(value: unknown): T {
    const result = this.safeParse(value)
    if (result.success) return result.data
    const [first] = result.error.issues
    throw new TypeError(`${first!.path.join('.') || 'value'}: ${first!.message}`)
  }

  /** Also accepts a missing member. */
  optional(): Shape<T | undefined> {
    const check = this.check
    return new Shape((value) => (value === undefined ? undefined : check(value)))
  }

  /** Also accepts a missing member and `null`. */
  nullish(): Shape<T | null | undefined> {
    const check = this.check
    return new Shape((value) => (value === undefined || value === null ? undefined : check(value)))
  }

  /** Runs `refine` on a value that fits, for rules across members. */
  superRefine(refine: (value: T, context: RefineContext) => void): Shape<T> {
    const check = this.check
    return new Shape((value) => {
      const issue = check(value)
      if (issue !== undefined) return issue
      let found: ShapeIssue | undefined
      refine(value as T, {
        addIssue(added) {
          found ??= { path: added.path ?? [], message: added.message }
        },
      })
      return found
    }, this.kind)
  }
}

/** A string shape, with zod's length check. */
export class StringShape extends Shape<string> {
  /** @param minLength the fewest characters, and the message when fewer */
  constructor(minLength?: { length: number; message: string | undefined }) {
    super((value) => {
      if (typeof value !== 'string') return typeIssue('string', value)
      if (minLength !== undefined && value.length < minLength.length) {
        return issue(
          minLength.message ??
            `Too small: expected string to have >=${minLength.length} characters`,
        )
      }
      return undefined
    }, 'string')
  }

  /** At least `length` characters. */
  min(length: number, message?: string): StringShape {
    return new StringShape({ length, message })
  }
}

type NumberRule = { test(value: number): boolean; message: string }

/** A number shape, with zod's range and integer checks. */
export class NumberShape extends Shape<number> {
  private readonly rules: readonly NumberRule[]
  private readonly typeMessage: string | undefined

  constructor(rules: readonly NumberRule[] = [], typeMessage?: string) {
    super((value) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return typeMessage === undefined ? typeIssue('number', value) : issue(typeMessage)
      }
      for (const rule of rules) if (!rule.test(value)) return issue(rule.message)
      return undefined
    }, 'number')
    this.rules = rules
    this.typeMessage = typeMessage
  }

  private with(rule: NumberRule): NumberShape {
    return new NumberShape([...this.rules, rule], this.typeMessage)
  }

  /** At least `bound`. */
  min(bound: number, message?: string): NumberShape {
    return this.with({
      test: (value) => value >= bound,
      message: message ?? `Too small: expected number to be >=${bound}`,
    })
  }

  /** At most `bound`. */
  max(bound: number, message?: string): NumberShape {
    return this.with({
      test: (value) => value <= bound,
      message: message ?? `Too big: expected number to be <=${bound}`,
    })
  }

  /** A whole number. */
  int(message?: string): NumberShape {
    return this.with({
      test: Number.isSafeInteger,
      message: message ?? 'Invalid input: expected int, received number',
    })
  }

  /** Above zero. */
  positive(message?: string): NumberShape {
    return this.with({
      test: (value) => value > 0,
      message: message ?? 'Too small: expected number to be >0',
    })
  }

  /** Zero or above. */
  nonnegative(message?: string): NumberShape {
    return this.min(0, message)
  }
}

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
function looseObject<F extends Fields>(fields: F): Shape<LooseObject<F>> {
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
function union<const S extends readonly Shape<unknown>[]>(shapes: S): Shape<Infer<S[number]>> {
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
function discriminatedUnion<const O extends ReadonlyArray<readonly [string, Shape<unknown>]>>(
  key: string,
  options: O,
): Shape<Infer<O[number][1]>> {
  const byTag = new Map<unknown, Check>(options.map(([tag, option]) => [tag, option.check]))
  return new Shape((value) => {
    if (!isJsonObject(value)) return typeIssue('object', value)
    const check = byTag.get(Object.hasOwn(value, key) ? value[key] : undefined) // lookup-safe: own
    if (check === undefined) return { path: [key], message: 'Invalid input' }
    return check(value)
  }, 'object')
}

/** Exactly this value. */
function literal<const V extends string | number | boolean>(expected: V): Shape<V> {
  return new Shape(
    (value) =>
      value === expected ? undefined : issue(`Invalid input: expected ${JSON.stringify(expected)}`),
    kindOf(expected),
  )
}

/** One of these strings. */
function oneOf<const V extends readonly string[]>(options: V): Shape<V[number]> {
  const allowed = new Set<unknown>(options)
  const message = `Invalid option: expected one of ${options.map((option) => JSON.stringify(option)).join('|')}`
  return new Shape((value) => (allowed.has(value) ? undefined : issue(message)), 'string')
}

/** A JSON object whose every member is a string. */
function stringRecord(): Shape<Record<string, string>> {
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
function preprocess<T>(prepare: (value: unknown) => unknown, inner: Shape<T>): Shape<T> {
  return new PreparedShape(prepare, inner)
}

/**
 * The shape builders, named as zod names them so that a schema reads the same. `oneOf` is zod's
 * `enum`, `stringRecord()` its `record(z.string(), z.string())`.
 */
export const shape = {
  looseObject,
  string: () => new StringShape(),
  number: (options?: { error?: string }) => new NumberShape([], options?.error),
  boolean: () =>
    new Shape<boolean>(
      (value) => (typeof value === 'boolean' ? undefined : typeIssue('boolean', value)),
      'boolean',
    ),
  unknown: () => new Shape<unknown>(() => undefined),
  array: <T>(item: Shape<T>) => new ArrayShape(item),
  union,
  discriminatedUnion,
  literal,
  oneOf,
  stringRecord,
  preprocess,
}

function issue(message: string): ShapeIssue {
  return { path: [], message }
}

function prefixed(key: string | number, found: ShapeIssue): ShapeIssue {
  found.path.unshift(key)
  return found
}

/** Issues about a value's own type, which a union passes over for one about its content. */
const wrongType = new WeakSet<ShapeIssue>()

function typeIssue(expected: string, value: unknown): ShapeIssue {
  const found = issue(`Invalid input: expected ${expected}, received ${kindOf(value)}`)
  wrongType.add(found)
  return found
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}
