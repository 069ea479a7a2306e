import * as z from 'zod/mini'
import { configSchemas } from '../../src/config/schema'
import { oneOfAlternatives } from '../../src/config/schema-parts'
import { configFieldDocs, type FieldDoc } from '../../src/config/field-docs'

/** A JSON Schema node, as zod emits it and this module adjusts it. */
export type JsonSchema = { [keyword: string]: unknown }

/** One field of the config, as the reference lists it. */
export type ConfigField = {
  /** `groups[].upstreams[].baseUrl`: `[]` stands for any element of an array. */
  path: string
  /** Its schema, once per alternative that has it (an HTTP and a mock upstream both have `id`). */
  schemas: JsonSchema[]
  /** Whether every alternative that has it requires it. */
  required: boolean
  /** A field that takes code (a plug-in object, a function): in `createGateway`, not in a file. */
  codeOnly: boolean
  doc: FieldDoc
}

/** The config's JSON Schema, and its fields in the order the schema lists them. */
export type ConfigReference = { schema: JsonSchema; fields: ConfigField[] }

const CODE_ONLY = 'x-code-only'

/** A string that names environment variables, as `${NAME}` anywhere in it. */
const envReference: JsonSchema = {
  type: 'string',
  pattern: '\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}',
  description:
    'Holds a ${NAME} reference to an environment variable: the gateway checks the value once it is expanded.',
}

/** JSON Schema formats every validator knows; zod's own (`starts_with`) are dropped. */
const standardFormats = new Set(['date-time', 'uri', 'email', 'uuid'])

/**
 * Generates the JSON Schema of a JSON config file from the zod schemas the gateway checks configs
 * with (`configSchemas()`), with the descriptions and defaults of `src/config/field-docs.ts`.
 *
 * - Fields that take code (plug-ins such as `keyStore`, functions such as `fetch`) have no JSON
 *   form: they are left out of the schema, and listed in the reference as "code only".
 * - A string field that the schema constrains (a pattern, a format) also takes a string with a
 *   `${NAME}` reference, which the gateway expands before it checks the field.
 * - The checks the gateway makes across fields in code are restated where JSON Schema can say
 *   them (`crossFieldRules`); the rest (duplicate ids, fallbacks naming known models) are the
 *   gateway's alone.
 *
 * @throws Error when a field has no description, or a description names no field
 */
export function buildConfigReference(): ConfigReference {
  // A copy: zod may emit one JSON object for a schema used at several places.
  const schema = structuredClone(toJson(configSchemas().gatewayConfigSchema))
  const fields: ConfigField[] = []
  collectFields(schema, '', fields)
  checkDocs(fields)
  for (const field of fields) {
    for (const node of field.schemas) describe(node, field.doc)
  }
  crossFieldRules(schema)
  const ordered: JsonSchema = {
    $schema: schema.$schema,
    title: 'model-gateway config',
    description:
      "A model-gateway config file (model-gateway --config, or createGateway() with the parsed file). Generated from the gateway's own config schema; fields that take code (plug-ins, functions) are not in it. Reference: docs/configuration.md.",
    ...schema,
    $defs: { envReference },
  }
  return { schema: ordered, fields }
}

function toJson(schema: z.ZodMiniType): JsonSchema {
  return z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => adjust(zodSchema, jsonSchema as JsonSchema),
  }) as JsonSchema
}

/** Called by zod for every schema it turns into JSON, inner ones first. */
function adjust(zodSchema: z.core.$ZodType, json: JsonSchema): void {
  const alternatives = oneOfAlternatives(zodSchema)
  if (alternatives !== undefined) {
    // A `oneOf` is a transform of `unknown` to zod: its JSON form is the union of its choices.
    for (const keyword of Object.keys(json)) delete json[keyword]
    json.anyOf = alternatives.map((alternative) => {
      const { $schema: _, ...rest } = toJson(alternative)
      return rest
    })
    return
  }
  const def = zodSchema._zod.def as { type: string; defaultValue?: unknown; protocol?: unknown }
  if (def.type === 'custom') {
    json[CODE_ONLY] = true
    return
  }
  // zod leaves out the default of a schema with a transform inside (`forwardHeaders`).
  if (def.type === 'default' && !('default' in json)) json.default = def.defaultValue
  // zod bounds every integer by the safe integers: true, and noise in an editor's hover.
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum
  if (typeof json.format === 'string' && !standardFormats.has(json.format)) delete json.format
  // `format: date-time` says what zod's long ISO pattern says.
  if (json.format === 'date-time') delete json.pattern
  // `z.url({ protocol })`: zod emits `format: uri` alone.
  if (json.format === 'uri' && def.protocol instanceof RegExp) {
    const protocol = /^\^(.*)\$$/.exec(def.protocol.source)?.[1]
    if (protocol !== undefined) json.pattern = `^${protocol}:`
  }
  const constrained =
    json.type === 'string' &&
    (json.pattern !== undefined ||
      json.format !== undefined ||
      (typeof json.minLength === 'number' && json.minLength > '${A}'.length))
  if (constrained) {
    const string = { ...json }
    for (const keyword of Object.keys(json)) delete json[keyword]
    json.anyOf = [string, { $ref: '#/$defs/envReference' }]
  }
}

/**
 * Walks the schema's fields: records each (once per path, with the schema of every alternative
 * that has it), and removes the fields and alternatives that take code.
 */
function collectFields(node: JsonSchema, path: string, fields: ConfigField[]): void {
  const properties = node.properties as Record<string, JsonSchema> | undefined
  if (properties !== undefined) {
    const required = new Set((node.required as string[] | undefined) ?? [])
    for (const [name, child] of Object.entries(properties)) {
      const childPath = path === '' ? name : `${path}.${name}`
      const codeOnly = child[CODE_ONLY] === true
      let field = fields.find((known) => known.path === childPath)
      if (field === undefined) {
        field = {
          path: childPath,
          schemas: [],
          required: required.has(name),
          codeOnly,
          doc: { text: '' },
        }
        fields.push(field)
      } else {
        field.required &&= required.has(name)
      }
      if (codeOnly) {
        delete properties[name]
        required.delete(name)
        continue
      }
      field.schemas.push(child)
      collectFields(child, childPath, fields)
    }
    if (node.required !== undefined) node.required = [...required]
  }
  if (typeof node.items === 'object' && node.items !== null)
    collectFields(node.items as JsonSchema, `${path}[]`, fields)
  for (const keyword of ['anyOf', 'oneOf']) {
    const branches = node[keyword] as JsonSchema[] | undefined
    if (branches === undefined) continue
    const kept = branches.filter((branch) => branch[CODE_ONLY] !== true)
    node[keyword] = kept
    for (const branch of kept) collectFields(branch, path, fields)
  }
}

/** Every field has a description, and every description a field. */
function checkDocs(fields: ConfigField[]): void {
  const paths = new Set(fields.map((field) => field.path))
  const undocumented = fields.filter((field) => !Object.hasOwn(configFieldDocs, field.path))
  const unknown = Object.keys(configFieldDocs).filter((path) => !paths.has(path))
  if (undocumented.length > 0 || unknown.length > 0) {
    throw new Error(
      [
        'src/config/field-docs.ts (and field-docs-groups.ts) is out of step with the config schema:',
        ...undocumented.map((field) => `  no description for ${field.path}`),
        ...unknown.map((path) => `  a description for ${path}, which the schema does not have`),
      ].join('\n'),
    )
  }
  for (const field of fields) {
    const doc = configFieldDocs[field.path]!
    field.doc = typeof doc === 'string' ? { text: doc } : doc
  }
}

function describe(node: JsonSchema, doc: FieldDoc): void {
  if (doc.default !== undefined && !('default' in node)) node.default = doc.default
  // A default that is not one value is said in words (editors show `default` on their own).
  const inWords =
    !('default' in node) && doc.defaultText !== undefined && doc.defaultText !== 'none'
  node.description = inWords ? `${doc.text} Default: ${doc.defaultText}.` : doc.text
}

/**
 * The checks `src/config/cross-checks.ts` and the key entry's refinement make in code, restated
 * in JSON Schema where it can say them.
 */
function crossFieldRules(schema: JsonSchema): void {
  const properties = schema.properties as Record<string, JsonSchema>
  // "give exactly one of groups or groupRegistry": a file cannot hold a registry.
  schema.required = ['groups']
  // "give keys, a keyStore, or both": the CLI makes a key store of `state.postgres`.
  schema.anyOf = [
    { required: ['keys'] },
    { required: ['state'], properties: { state: { type: 'object', required: ['postgres'] } } },
  ]
  const key = (properties.keys!.items as JsonSchema) ?? {}
  key.oneOf = [{ required: ['key'] }, { required: ['keyHash'] }]
  const groups = properties.groups!.items as JsonSchema
  const upstreams = (groups.properties as Record<string, JsonSchema>).upstreams!.items as JsonSchema
  // "give one of apiKey or apiKeys", refused at `apiKeys` as the gateway does.
  for (const upstream of upstreams.anyOf as JsonSchema[]) {
    const fields = upstream.properties as Record<string, JsonSchema>
    if (fields.apiKeys !== undefined)
      upstream.dependentSchemas = { apiKey: { properties: { apiKeys: false } } }
  }
}
