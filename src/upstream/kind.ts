import type { ProtocolName } from '../protocols/protocol-name'
import { stringOf } from '../internal/json'
import type { CloudCredentialChains } from './credentials/cloud-credentials'
import { upstreamSpecificationVersion, type UpstreamProvider } from './provider'

/**
 * A validator in the Standard Schema form (`~standard.validate`), which zod, valibot and arktype
 * schemas all are: how an upstream kind checks its config entries without the gateway depending
 * on the library it was written with.
 */
export type UpstreamKindSchema<Settings> = {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    validate(
      value: unknown,
    ):
      | { readonly value: Settings; readonly issues?: undefined }
      | { readonly issues: readonly UpstreamKindIssue[] }
      | Promise<unknown>
  }
}

/** One problem a kind's schema found in an entry, at a path inside the entry. */
export type UpstreamKindIssue = {
  readonly message: string
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined
}

/** What a kind's factory gets besides the entry's own settings. */
export type UpstreamKindContext = {
  /** The upstream's id: the entry's `id`, else `<group id>#<index>`. */
  id: string
  /** The group's protocol family. */
  protocol: Exclude<ProtocolName, 'responses'>
  /** The config's `fetch`, when it gives one (`createNodeFetch` on Node). */
  fetch?: typeof fetch | undefined
  /** The gateway's clock. */
  now: () => number
  /**
   * Where the kind reads environment variables (an endpoint override such as
   * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`): the config's `env`, else `process.env` where the runtime
   * has one, else nothing. Never read for secrets a config entry did not name.
   */
  env?: Readonly<Record<string, unknown>> | undefined
  /**
   * The runtime's default cloud credential chains, for an entry that gives no credentials (the
   * config's `cloudCredentials`; on Node, `nodeCloudCredentials()`).
   */
  cloudCredentials?: CloudCredentialChains | undefined
}

/**
 * A kind of upstream: what a config entry `{ "provider": "<name>", … }` builds. The gateway's own
 * are `openai`, `anthropic`, `gemini` and `mock`; an application adds its own with the config's
 * `upstreamKinds`. A kind checks its entries with its schema and builds one `UpstreamProvider`
 * per entry; most build it with `createHttpProvider` and its `wire`, `prepare`, `sign`,
 * `readStream` and `normaliseError` parts.
 */
export interface UpstreamKind<Settings = unknown> {
  /** The interface version it implements: `upstreamSpecificationVersion` (1). */
  readonly specificationVersion: number
  /** The `provider` value of its config entries: letters, digits, `.`, `_` and `-`. */
  readonly name: string
  /** The protocol families (group protocols) it can serve. */
  readonly protocols: readonly Exclude<ProtocolName, 'responses'>[]
  /**
   * The schema of its config entries, `provider` included; called once, when the first config
   * names the kind. Its output is what `create` gets.
   */
  schema(): UpstreamKindSchema<Settings>
  /** Builds the upstream an entry describes. */
  create(settings: Settings, context: UpstreamKindContext): UpstreamProvider
}

/** The name a kind may have: the shape of a config value and of a log field. */
const kindName = /^[a-z0-9][a-z0-9._-]*$/

/**
 * Declares an upstream kind, checked at once: its specification version, its name and its
 * protocols. Use it for a kind of your own, then pass the kind in the config's `upstreamKinds`.
 *
 * @throws Error for a kind of a specification version this gateway does not implement
 */
export function defineUpstreamKind<Settings>(kind: UpstreamKind<Settings>): UpstreamKind<Settings> {
  const problem = kindProblem(kind)
  if (problem !== undefined) throw new Error(problem)
  return kind
}

/** What is wrong with a value given as an upstream kind, or `undefined` when it is one. */
export function kindProblem(kind: unknown): string | undefined {
  if (typeof kind !== 'object' || kind === null) return 'expected an UpstreamKind object'
  const { name, specificationVersion, protocols, schema, create } = kind as Partial<UpstreamKind>
  if (typeof name !== 'string' || !kindName.test(name)) {
    return 'an upstream kind needs a name of lower-case letters, digits, ".", "_" and "-"'
  }
  if (specificationVersion !== upstreamSpecificationVersion) {
    return versionProblem(`upstream kind "${name}"`, specificationVersion)
  }
  if (!Array.isArray(protocols) || protocols.length === 0) {
    return `upstream kind "${name}" names no protocol family it serves`
  }
  if (typeof schema !== 'function' || typeof create !== 'function') {
    return `upstream kind "${name}" needs schema() and create()`
  }
  return undefined
}

/**
 * The refusal of a provider or kind of a specification version the gateway does not implement,
 * or `undefined` when it does.
 */
export function versionProblem(what: string, version: unknown): string | undefined {
  if (version === upstreamSpecificationVersion) return undefined
  return `${what} implements specification version ${stringOf(version)}; this gateway implements version ${upstreamSpecificationVersion}`
}
