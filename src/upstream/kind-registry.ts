import { anthropicKind } from './anthropic/kind'
import { bedrockKind } from './bedrock/kind'
import { azureKind } from './azure/kind'
import { geminiKind } from './gemini/kind'
import { kindProblem, type UpstreamKind, type UpstreamKindIssue } from './kind'
import { mockKind } from './mock/kind'
import { openaiKind } from './openai/kind'
import { vertexKind } from './vertex/kind'

/** The gateway's own upstream kinds, by the `provider` value that names them. */
export const builtInKinds: readonly UpstreamKind<any>[] = [
  openaiKind,
  anthropicKind,
  geminiKind,
  bedrockKind,
  azureKind,
  vertexKind,
  mockKind,
]

/** The upstream kinds a config may name: the built-in ones, then the application's own. */
export type UpstreamKindRegistry = ReadonlyMap<string, UpstreamKind>

/**
 * The registry of the built-in kinds and `extra`, leaving out any value that is not a usable kind
 * (`kindProblem` says why, for the config's error) and any kind whose name is already taken.
 */
export function createKindRegistry(extra: readonly unknown[] = []): UpstreamKindRegistry {
  const registry = new Map<string, UpstreamKind>()
  for (const kind of builtInKinds) registry.set(kind.name, kind)
  for (const kind of extra) {
    if (kindProblem(kind) !== undefined) continue
    const { name } = kind as UpstreamKind
    if (!registry.has(name)) registry.set(name, kind as UpstreamKind)
  }
  return registry
}

/** The known kinds' names as a config error lists them: `"openai", "anthropic", …`. */
export function knownKindNames(registry: UpstreamKindRegistry): string {
  return [...registry.keys()].map((name) => `"${name}"`).join(', ')
}

const schemas = new WeakMap<UpstreamKind, ReturnType<UpstreamKind['schema']>>()

/** A kind's entry checked by its schema: the settings `create` takes, or the issues. */
export type KindSettings =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: readonly UpstreamKindIssue[] }

/**
 * Checks an entry with its kind's schema, built once per kind. A schema that answers with a
 * promise is refused: a config is checked synchronously, once, when the gateway is created.
 */
export function checkKindSettings(kind: UpstreamKind, entry: unknown): KindSettings {
  let schema = schemas.get(kind)
  if (schema === undefined) {
    schema = kind.schema()
    schemas.set(kind, schema)
  }
  const result = schema['~standard'].validate(entry)
  if (result instanceof Promise) {
    result.catch(() => undefined)
    return { issues: [{ message: `the schema of kind "${kind.name}" must check synchronously` }] }
  }
  return result as KindSettings
}
