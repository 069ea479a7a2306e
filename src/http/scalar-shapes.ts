import { issue, kindOf, typeIssue } from './shape-issue'
import { Shape } from './shape'

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

/** A check a number must pass, and the message when it does not. */
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

/** Exactly this value. */
export function literal<const V extends string | number | boolean>(expected: V): Shape<V> {
  return new Shape(
    (value) =>
      value === expected ? undefined : issue(`Invalid input: expected ${JSON.stringify(expected)}`),
    kindOf(expected),
  )
}

/** One of these strings. */
export function oneOf<const V extends readonly string[]>(options: V): Shape<V[number]> {
  const allowed = new Set<unknown>(options)
  const message = `Invalid option: expected one of ${options.map((option) => JSON.stringify(option)).join('|')}`
  return new Shape((value) => (allowed.has(value) ? undefined : issue(message)), 'string')
}
