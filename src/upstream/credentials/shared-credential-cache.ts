import type { CredentialCache } from './credential-cache'

/**
 * The cache of `owner` and `key`, made by `make` the first time it is asked for. `key` tells apart
 * the caches of one owner (a scope, a role, a service principal); without it the owner has one.
 */
export type SharedCredentialCaches<T> = (
  owner: object,
  make: () => CredentialCache<T>,
  key?: string,
) => CredentialCache<T>

/**
 * A register of credential caches shared by the upstreams that name the same source: one cache per
 * owner (a callback in code, the runtime's chain, a source cache a role is assumed with) and
 * optional key, so that a burst of calls across upstreams, groups and gateways of the process
 * fetches once. Owners are held weakly: a source no config holds any more takes its caches with
 * it, and a config reloaded with a new callback never finds the old one's credentials. Each cloud
 * makes its own register, so its caches hold one type of credential and one cloud's source is
 * never answered from another's.
 */
export function sharedCredentialCaches<T>(): SharedCredentialCaches<T> {
  const byOwner = new WeakMap<object, Map<string, CredentialCache<T>>>()
  return (owner, make, key = '') => {
    let caches = byOwner.get(owner)
    if (caches === undefined) {
      caches = new Map()
      byOwner.set(owner, caches)
    }
    let cache = caches.get(key)
    if (cache === undefined) {
      cache = make()
      caches.set(key, cache)
    }
    return cache
  }
}
