import type { ShapeIssue, ShapePath } from './shape-issue'

/** The outcome of `Shape.safeParse`, as zod's: the value itself when it fits, else its issues. */
export type ShapeResult<T> =
  { success: true; data: T } | { success: false; error: { issues: ShapeIssue[] } }

/** How a `superRefine` callback reports an issue, as zod's context does. */
export type RefineContext = {
  addIssue(issue: { code?: string; path?: ShapePath; message: string }): void
}

/** The first issue of a value, its path relative to the value; `undefined` when it fits. */
export type Check = (value: unknown) => ShapeIssue | undefined

/** The JSON type a shape takes, named as `kindOf` names it; `undefined` when it takes several. */
export type Kind = string | undefined

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
