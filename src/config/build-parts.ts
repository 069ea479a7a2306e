import type { KeyHasher } from '../auth/hash-key'
import { createCompositeKeyStore } from '../auth/composite-key-store'
import type { KeyStore } from '../auth/key-store'
import { createMemoryKeyStore, type HashedKey } from '../auth/memory-key-store'
import { maskKey } from '../auth/mask-key'
import type { Group, GroupRegistry } from '../routing/group-registry'
import { createStaticGroupRegistry } from '../routing/static-group-registry'
import { createHttpProvider } from '../upstream/http-provider'
import { createMockProvider } from '../upstream/mock-provider'
import type { UpstreamProvider } from '../upstream/provider'
import type { ValidGatewayConfig } from './schema'

type GroupConfig = NonNullable<ValidGatewayConfig['groups']>[number]
type KeyConfig = NonNullable<ValidGatewayConfig['keys']>[number]

/** Builds the group registry a config describes, or returns the one it passes in. */
export function buildGroupRegistry(config: ValidGatewayConfig, now: () => number): GroupRegistry {
  if (config.groupRegistry !== undefined) return config.groupRegistry
  return createStaticGroupRegistry(
    (config.groups ?? []).map((group) => buildGroup(group, config, now)),
  )
}

function buildGroup(group: GroupConfig, config: ValidGatewayConfig, now: () => number): Group {
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
      const id =
        ('id' in entry && typeof entry.id === 'string' ? entry.id : undefined) ??
        `${group.id}#${index}`
      if ('send' in entry) return entry
      // An OpenAI upstream marked `responses` speaks the Responses API, a protocol of its own.
      const { responses, ...settings } = entry
      const protocol = responses === true ? 'responses' : group.protocol
      if ('provider' in settings) return createMockProvider({ ...settings, id, protocol, now })
      return createHttpProvider({ ...settings, id, protocol, fetch: config.fetch })
    }),
  }
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
      disabled: entry.disabled,
      expiresAt: entry.expiresAt === undefined ? undefined : new Date(entry.expiresAt),
    },
  }
}
