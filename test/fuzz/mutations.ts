import fc from 'fast-check'

/**
 * Arbitraries that turn a valid request body into a hostile one: values of the wrong type, nulls,
 * members named after Object.prototype, deep nesting, duplicate and escaped keys, lone
 * surrogates, huge numbers, and texts that are empty, truncated or not JSON at all.
 *
 * @module
 */

/** Raw JSON text to splice into a serialised body where JSON.stringify cannot write it. */
class RawJson {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

type Value = unknown

/** Member names that are members of Object.prototype. */
export const prototypeNames = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  'toLocaleString',
]

const loneSurrogates = fc.constantFrom('\ud800', '\udfff', 'a\ud83d', '\ude00b', '\ud83d\ude00')

const rawNumbers = fc.constantFrom(
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '-0',
  '1e-400',
  '0.0000000000000000000000001',
  '9007199254740993',
)

/** A nesting of `depth` arrays or objects around a value, as raw text. */
const deepNesting = fc
  .record({ depth: fc.integer({ min: 60, max: 5000 }), object: fc.boolean() })
  .map(({ depth, object }) =>
    object
      ? new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))
      : new RawJson('['.repeat(depth) + '1' + ']'.repeat(depth)),
  )

/**
 * JSON text nested `depth` deep, as a string value: what a client can put inside the string fields
 * the gateway parses (tool-call `arguments`, a tool result that is an object's text, Responses
 * `function_call` arguments), which the body's own nesting scan cannot see into.
 */
const nestedJsonText = fc
  .record({ depth: fc.integer({ min: 100, max: 12_000 }), object: fc.boolean() })
  .map(({ depth, object }) =>
    object
      ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
      : '{"a":' + '['.repeat(depth) + '1' + ']'.repeat(depth) + '}',
  )

/** The string fields of the inbound bodies whose text some translator parses as JSON. */
const parsedStringFields = new Set(['arguments', 'content', 'output', 'text', 'partial_json'])

const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...prototypeNames) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'type',
      'text',
      'role',
      'content',
      'parts',
      'model',
      'stream',
      'tools',
      'input',
      'source',
      'function',
      'name',
      'id',
      'args',
      'properties',
      'items',
      'anyOf',
      'definitions',
      '$ref',
      'const',
      'nullable',
      'inlineData',
      'fileData',
      'functionCall',
      'functionResponse',
      'thought',
      'thoughtSignature',
      'cache_control',
      'tool_calls',
      'image_url',
      'signature',
      'stream_options',
      'include_usage',
      'max_tokens',
      'generationConfig',
      'system_instruction',
      'thinking',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
)

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 100_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  loneSurrogates,
  fc.constantFrom(...prototypeNames),
  fc.constantFrom('', 'user', 'assistant', 'model', 'system', 'tool', 'text', 'image', 'tool_use'),
  fc.constantFrom('tool_result', 'thinking', 'function', 'image_url', 'data:image/png;base64,AAAA'),
  fc.constantFrom('https://x.test/a.constructor', 'AUTO', 'ANY', 'OBJECT', 'gw1.unsigned'),
  // The gateway's reasoning carriers (ADR 0018), malformed: each must be a 400, never a 500.
  fc.constantFrom('gw1.o.', 'gw1.o.e30', 'gwr1.eyJ0IjoieCJ9', 'gwr1.!', 'Z3d0aGluazE6W10='),
  fc.string({ maxLength: 12 }).map((tail) => `gw1.o.${tail}`),
  fc.string({ maxLength: 12 }).map((tail) => `Z3d0aGluazE6${tail}`),
  rawNumbers.map((text) => new RawJson(text)),
  nestedJsonText,
)

/** Any value a hostile client could put in a field. */
export const hostileValue: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: scalar },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.tuple(key, tie('value')), { maxLength: 3 })
        .map((entries) => Object.fromEntries(entries)),
    },
    { weight: 1, arbitrary: deepNesting },
  ),
})).value

/** One edit of a parsed body. */
type Edit =
  | { kind: 'replace'; pick: number; value: Value }
  | { kind: 'delete'; pick: number }
  | { kind: 'add'; pick: number; key: string; value: Value }
  | { kind: 'wrap'; pick: number }
  | { kind: 'embed'; pick: number; text: string }

const edit: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      pick: fc.nat(),
      value: hostileValue,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      pick: fc.nat(),
      key,
      value: hostileValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrap' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('embed' as const),
      pick: fc.nat(),
      text: nestedJsonText,
    }),
  },
)

type Slot = { parent: Record<string, Value> | Value[]; key: string | number }

function slots(value: Value, out: Slot[] = []): Slot[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push({ parent: value, key: index })
      slots(item, out)
    })
  } else if (typeof value === 'object' && value !== null && !(value instanceof RawJson)) {
    for (const name of Object.keys(value)) {
      out.push({ parent: value as Record<string, Value>, key: name })
      slots((value as Record<string, Value>)[name], out)
    }
  }
  return out
}

function containers(value: Value, out: Array<Record<string, Value>> = []) {
  if (Array.isArray(value)) for (const item of value) containers(item, out)
  else if (typeof value === 'object' && value !== null && !(value instanceof RawJson)) {
    out.push(value as Record<string, Value>)
    for (const item of Object.values(value)) containers(item, out)
  }
  return out
}

function setOwn(target: Record<string, Value> | Value[], name: string | number, value: Value) {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

function applyEdit(body: Value, change: Edit): void {
  if (change.kind === 'add') {
    const targets = containers(body)
    const target = targets[change.pick % targets.length]
    if (target !== undefined) setOwn(target, change.key, change.value)
    return
  }
  const all = slots(body)
  if (change.kind === 'embed') {
    // Deep JSON text into one of the string fields a translator parses, when the body has one.
    const parsed = all.filter(
      (slot) => typeof slot.key === 'string' && parsedStringFields.has(slot.key),
    )
    const target = parsed[change.pick % Math.max(1, parsed.length)]
    if (target !== undefined) setOwn(target.parent, target.key, change.text)
    return
  }
  const slot = all[change.pick % Math.max(1, all.length)]
  if (slot === undefined) return
  const current = (slot.parent as Record<string | number, Value>)[slot.key]
  if (change.kind === 'replace') setOwn(slot.parent, slot.key, change.value)
  else if (change.kind === 'wrap') setOwn(slot.parent, slot.key, [current])
  else if (Array.isArray(slot.parent)) slot.parent.splice(Number(slot.key), 1)
  else delete slot.parent[slot.key]
}

/** Serialises a body, writing `RawJson` values as their text. */
export function serialise(body: Value): string {
  const raws: string[] = []
  const text = JSON.stringify(body, (_name, value: Value) => {
    if (value instanceof RawJson) {
      raws.push(value.text)
      return `\u0000raw${raws.length - 1}\u0000`
    }
    return value
  })
  return (text ?? 'null').replace(
    /"\\u0000raw(\d+)\\u0000"/g,
    (_whole, index: string) => raws[Number(index)]!,
  )
}

/** What a text-level mutation does to a serialised body. */
type TextChange =
  | { kind: 'none' }
  | { kind: 'duplicate-key'; key: string; value: string; first: boolean }
  | { kind: 'escape-key'; key: string }
  | { kind: 'truncate'; at: number }
  | { kind: 'replace-text'; text: string }
  | { kind: 'wrap-text'; before: string; after: string }

/** Call names and other model strings the mutations use, set by the suite. */
export function textChange(models: readonly string[]): fc.Arbitrary<TextChange> {
  const modelValue = fc.constantFrom(...models).map((model) => JSON.stringify(model))
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('duplicate-key' as const),
        key: fc.constantFrom(
          'model',
          'mod\\u0065l',
          'stream',
          'stream_optio\\u006es',
          'messages',
          'contents',
          'max_tokens',
        ),
        value: fc.oneof(
          modelValue,
          fc.constantFrom('{"include_usage":false}', 'true', 'false', '[]', 'null', '1', '"x"'),
        ),
        first: fc.boolean(),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('escape-key' as const),
        key: fc.constantFrom(
          'model',
          'stream_options',
          'messages',
          'contents',
          'stream',
          'max_tokens',
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('replace-text' as const),
        text: fc.oneof(
          fc.constantFrom(
            '',
            ' ',
            'null',
            '[]',
            '{}',
            '"model"',
            '1e400',
            'nope',
            '{"model":',
            '\ufeff{}',
            '[{"model":"x"}]',
          ),
          fc.string({ maxLength: 20 }),
          fc.string({ unit: 'binary', maxLength: 20 }),
          fc
            .integer({ min: 129, max: 20_000 })
            .map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('wrap-text' as const),
        before: fc.constantFrom('\ufeff', ' \n\t', '[', ''),
        after: fc.constantFrom('', ' ', ']', ',', '}', 'x'),
      }),
    },
  )
}

function applyTextChange(text: string, change: TextChange): string {
  switch (change.kind) {
    case 'none':
      return text
    case 'duplicate-key': {
      if (!text.startsWith('{') || text === '{}') return text
      const member = `"${change.key}":${change.value}`
      return change.first ? `{${member},${text.slice(1)}` : `${text.slice(0, -1)},${member}}`
    }
    case 'escape-key': {
      const escaped = change.key.replace(
        /[a-z]$/,
        (char) => `\\u00${char.charCodeAt(0).toString(16)}`,
      )
      return text.replace(`"${change.key}":`, `"${escaped}":`)
    }
    case 'truncate':
      return text.slice(0, change.at % (text.length + 1))
    case 'replace-text':
      return change.text
    case 'wrap-text':
      return `${change.before}${text}${change.after}`
    default: {
      const unknown: never = change
      throw new Error(`Unknown change ${JSON.stringify(unknown)}`)
    }
  }
}

/** A hostile body derived from a valid one: object edits, then a text-level change. */
export function hostileBody(
  base: () => Record<string, unknown>,
  models: readonly string[],
): fc.Arbitrary<string> {
  return fc
    .record({ edits: fc.array(edit, { minLength: 0, maxLength: 4 }), text: textChange(models) })
    .map(({ edits, text }) => {
      const body = base()
      for (const change of edits) applyEdit(body, change)
      return applyTextChange(serialise(body), text)
    })
}
