import type { Balancing } from '../failover/balancing'
import type { CircuitPolicy } from '../failover/circuit-policy'
import type { KeyPoolPolicy } from '../failover/key-pool'
import type { SessionAffinity } from '../failover/session-hint'
import type { MaybePromise } from '../internal/maybe-promise'
import type { ProtocolName } from '../protocols/protocol-name'
import type { UpstreamProvider } from '../upstream/provider'
import type { RetrySettings } from '../failover/retry-settings'
import type { ModelEntry } from '../models/model-entry'

export type { ModelEntry } from '../models/model-entry'

/** A pool of upstreams of one protocol family, serving a set of model call names. */
export type Group = {
  id: string
  protocol: ProtocolName
  models: readonly ModelEntry[]
  upstreams: readonly UpstreamProvider[]
  /** How the group's calls are retried and failed over (defaults: `defaultRetryPolicy`). */
  retry?: RetrySettings | undefined
  /** How an upstream is chosen among those fit to be tried (default `weighted`). */
  balancing?: Balancing | undefined
  /** Requests with the same session hint go to the same upstream while it is healthy (off by default). */
  sessionAffinity?: SessionAffinity | undefined
  /**
   * When the upstreams' circuits open and for how long (defaults: `defaultCircuitPolicy`);
   * `false` never opens them.
   */
  circuitBreaker?: Partial<CircuitPolicy> | false | undefined
  /** How pooled upstreams use their keys (defaults: round-robin, `defaultKeyCooldowns`). */
  keyPool?: KeyPoolPolicy | undefined
  /** What keys are charged for this group's models, × the list price (a resale margin; default 1). */
  priceMultiplier?: number | undefined
  /** The group's response cache (`groups[].cache`, docs/response-cache.md); off when absent. */
  cache?: GroupCachePolicy | undefined
}

/** How a group's answers are cached (`groups[].cache`). */
export type GroupCachePolicy = {
  /** How long an entry is served, in seconds. */
  ttlSeconds: number
  /** Whose entry it is: the key that caused it (default), the key's team, or the organisation. */
  scope?: 'key' | 'team' | 'organisation' | undefined
  /** Whether an answer with tool calls is cached (default false). */
  toolCalls?: boolean | undefined
  /** The largest entry kept, in bytes of its stored form (default 1 MiB). */
  maxEntryBytes?: number | undefined
}

/**
 * Where the gateway finds its groups. `createStaticGroupRegistry` builds one from the config;
 * implement it to load groups from a database.
 */
export interface GroupRegistry {
  /** Every group, in routing order (default routing takes the first that fits). */
  list(): MaybePromise<readonly Group[]>
  /** The group with this id, if any. */
  get(id: string): MaybePromise<Group | undefined>
  /** The groups that serve this call name, in routing order. */
  servingModel(model: string): MaybePromise<readonly Group[]>
}
