import {
  ArrayShape,
  discriminatedUnion,
  looseObject,
  preprocess,
  stringRecord,
  union,
} from './composite-shapes'
import { literal, NumberShape, oneOf, StringShape } from './scalar-shapes'
import { Shape } from './shape'
import { typeIssue } from './shape-issue'

// The request schemas' vocabulary, one import away: the base `Shape` (`shape.ts`), its issues
// (`shape-issue.ts`), the scalar and the composite shapes, and the `shape` builders below.
export type { ShapeIssue, ShapePath } from './shape-issue'
export { Shape, type Infer, type RefineContext, type ShapeResult } from './shape'
export { StringShape, NumberShape } from './scalar-shapes'
export { ArrayShape, type LooseObject } from './composite-shapes'

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
