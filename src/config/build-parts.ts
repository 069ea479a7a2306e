import type { KeyHasher } from '../auth/hash-key'
import { createCompositeKeyStore } from '../auth/composite-key-store'
import type { KeyStore } from '../auth/key-store'
import { createMemoryKeyStore, type HashedKey } from '../auth/memory-key-store'
import { maskKey } from '../auth/mask-key'
import type { Group, GroupRegistry } from '../routing/group-registry'
import { createStaticGroupRegistry } from '../routing/static-group-registry'
import { versionProblem, type UpstreamKind, type UpstreamKindContext } from '../upstream/kind'
import { UpstreamEntryError } from '../upstream/entry-error'
import {
  checkKindSettings,
  createKindRegistry,
  type UpstreamKindRegistry,
} from '../upstream/kind-registry'
import type { UpstreamProvider } from '../upstream/provider'
import { isBuiltIn } from './kind-checks'
import { GatewayConfigError, readProcessEnv } from './parse-config'
import type { ValidGatewayConfig } from './schema'
import { perUserOf } from './team-parts'

type GroupConfig = NonNullable<ValidGatewayConfig['groups']>[number]
type KeyConfig = NonNullable<ValidGatewayConfig['keys']>[number]

/** Builds the group registry a config describes, or returns the one it passes in. */
export function buildGroupRegistry(config: ValidGatewayConfig, now: () => number): GroupRegistry {
  if (config.groupRegistry !== undefined) return config.groupRegistry
  const kinds = createKindRegistry(config.upstreamKinds)
  return createStaticGroupRegistry(
    (config.groups ?? []).map((group, index) => buildGroup({ group, index, config, kinds, now })),
  )
}

/** What building one group takes. */
type GroupBuild = {
  group: GroupConfig
  /** Its index in `groups`, for the path of a config error. */
  index: number
  config: ValidGatewayConfig
  kinds: UpstreamKindRegistry
  now: () => number
}

function buildGroup({ group, index: groupIndex, config, kinds, now }: GroupBuild): Group {
  return {
    id: group.id,
    protocol: group.protocol,
    ...(group.retry === undefined ? {} : { retry: group.retry }),
    balancing: group.balancing,
    sessionAffinity:
      group.sessionAffinity === true
        ? {}
        : group.sessionAffinity === false
          ? undefined
          : group.sessionAffinity,
    circuitBreaker: group.circuitBreaker,
    keyPool: group.keyPool,
    ...(group.priceMultiplier === undefined ? {} : { priceMultiplier: group.priceMultiplier }),
    ...(group.cache === undefined ? {} : { cache: group.cache }),
    models: group.models.map((model) =>
      typeof model === 'string'
        ? { name: model, upstreamModel: model }
        : {
            name: model.name,
            upstreamModel: model.upstreamModel ?? model.name,
            ...(model.profile === undefined ? {} : { profile: model.profile }),
            ...(model.fallbacks === undefined ? {} : { fallbacks: model.fallbacks }),
            ...(model.price === undefined ? {} : { price: model.price }),
          },
    ),
    upstreams: group.upstreams.map((entry, index): UpstreamProvider => {
      if (typeof (entry as Partial<UpstreamProvider>).send === 'function') {
        return entry as UpstreamProvider
      }
      const settings = entry as Exclude<typeof entry, UpstreamProvider>
      const id = settings.id ?? `${group.id}#${index}`
      // An entry without `provider` is an HTTP upstream of the group's own family.
      const kind = kinds.get('provider' in settings ? settings.provider : group.protocol)!
      // The config check named every unknown kind and checked every entry of a kind of the
      // application's; its settings are what its schema makes of the entry.
      const checked = isBuiltIn(kind.name)
        ? settings
        : (checkKindSettings(kind, settings) as { value?: unknown }).value
      const context = {
        id,
        protocol: group.protocol,
        fetch: config.fetch,
        now,
        env: config.env ?? readProcessEnv(),
        cloudCredentials: config.cloudCredentials,
      }
      const provider = createUpstream(
        kind,
        checked,
        context,
        `groups[${groupIndex}].upstreams[${index}]`,
      )
      const problem = versionProblem(
        `the provider the "${kind.name}" kind built`,
        provider.specificationVersion ?? 1,
      )
      if (problem !== undefined) {
        const path = `groups[${groupIndex}].upstreams[${index}]`
        throw new GatewayConfigError([{ path, message: problem }])
      }
      return withTier(provider, checked as { priority?: number; priceMultiplier?: number })
    }),
  }
}

/**
 * The provider a kind built, with the entry's `priority` and `priceMultiplier` (every kind's
 * schema takes them, `upstreamSelectionShape`): set on the provider, or on an object delegating
 * to it when a kind hands out a frozen one, so that no kind has to copy them itself.
 */
function withTier(
  provider: UpstreamProvider,
  settings: { priority?: number | undefined; priceMultiplier?: number | undefined },
): UpstreamProvider {
  const fields: { priority?: number; priceMultiplier?: number } = {}
  if (settings.priority !== undefined && provider.priority === undefined) {
    fields.priority = settings.priority
  }
  if (settings.priceMultiplier !== undefined && provider.priceMultiplier === undefined) {
    fields.priceMultiplier = settings.priceMultiplier
  }
  if (fields.priority === undefined && fields.priceMultiplier === undefined) return provider
  if (Object.isExtensible(provider)) return Object.assign(provider, fields)
  return Object.assign(Object.create(provider) as UpstreamProvider, fields)
}

/** A key of the config, hashed: what the key store holds, and the masked form listings show. */
export type ConfigKey = HashedKey & {
  /** `sk-…abcd` for a plaintext key, `sha256:0123abcd…` for one given by its hash. */
  masked: string
}

/**
 * Hashes the config's keys. Plaintext keys are hashed here and dropped: only SHA-256 hashes and
 * the masked form are kept. Hashing may be asynchronous (Web Crypto), hence the promise.
 *
 * @throws Error for two keys with the same id
 */
export async function hashConfigKeys(
  config: ValidGatewayConfig,
  hash: KeyHasher,
): Promise<ConfigKey[]> {
  const entries = await Promise.all((config.keys ?? []).map((entry) => hashEntry(entry, hash)))
  const ids = new Set<string>()
  for (const entry of entries) {
    if (ids.has(entry.record.id)) throw new Error(`Duplicate key id "${entry.record.id}".`)
    ids.add(entry.record.id)
  }
  return entries
}

/**
 * Builds the key store a config describes over its hashed keys (`hashConfigKeys`): the store
 * keeps only SHA-256 hashes, and hashes each presented secret with `hash`. With both `keys` and a
 * `keyStore` (a database), the config's keys are asked first, then the store.
 */
export function buildKeyStore(
  config: ValidGatewayConfig,
  keys: readonly ConfigKey[],
  hash: KeyHasher,
): KeyStore {
  if (config.keys === undefined && config.keyStore !== undefined) return config.keyStore
  const configKeys = createMemoryKeyStore(keys, { hash })
  return config.keyStore === undefined
    ? configKeys
    : createCompositeKeyStore([configKeys, config.keyStore])
}

async function hashEntry(entry: KeyConfig, hashKey: KeyHasher): Promise<ConfigKey> {
  const hash = entry.keyHash?.slice('sha256:'.length).toLowerCase() ?? (await hashKey(entry.key!))
  const id = entry.id ?? `key_${hash.slice(0, 12)}`
  return {
    hash,
    masked: entry.key === undefined ? `sha256:${hash.slice(0, 8)}…` : maskKey(entry.key)!,
    record: {
      id,
      name: entry.name ?? id,
      groups: entry.groups,
      quota: entry.quota,
      limits: entry.limits,
      budget: entry.budget,
      priceMultiplier: entry.priceMultiplier,
      team: entry.team,
      perUser: perUserOf(entry),
      mcp: entry.mcp,
      disabled: entry.disabled,
      expiresAt: entry.expiresAt === undefined ? undefined : new Date(entry.expiresAt),
    },
  }
}

/**
 * The provider a kind builds for an entry; a problem its kind finds only then (an
 * `UpstreamEntryError`: a credential neither given nor available) is a config error at the entry.
 */
function createUpstream(
  kind: UpstreamKind,
  settings: unknown,
  context: UpstreamKindContext,
  path: string,
): UpstreamProvider {
  try {
    return kind.create(settings, context)
  } catch (error) {
    if (!(error instanceof UpstreamEntryError)) throw error
    const at = error.field === undefined ? path : `${path}.${error.field}`
    throw new GatewayConfigError([{ path: at, message: error.message }])
  }
}
