/** How many failed sign-ins a client may make at once, refilled over a minute. */
const perClient = 5
/** Failed sign-ins from all clients together per minute: the bound when addresses are unknown. */
const overall = 60
const minuteMs = 60_000
/** Clients remembered at once; the oldest is forgotten first. */
const maxClients = 10_000

type Bucket = { level: number; updatedAt: number }

/**
 * Limits failed sign-ins: `perClient` per minute from one address, `overall` per minute in all
 * (token buckets that refill continuously). A client past its limit is refused before its
 * credential is even checked, so guessing costs a minute per few attempts; successful sign-ins
 * cost nothing. Per process: instances behind one address each allow as much.
 */
export type SignInLimiter = {
  /** Milliseconds until this client may try again; 0 when it may now. */
  waitMs(client: string, now: number): number
  /** Counts a failed attempt. */
  failed(client: string, now: number): void
}

export function createSignInLimiter(): SignInLimiter {
  const clients = new Map<string, Bucket>()
  const all: Bucket = { level: overall, updatedAt: 0 }
  const refill = (bucket: Bucket, limit: number, now: number) => {
    const elapsed = Math.max(0, now - bucket.updatedAt)
    bucket.level = Math.min(limit, bucket.level + (elapsed * limit) / minuteMs)
    bucket.updatedAt = now
  }
  const wait = (bucket: Bucket, limit: number) =>
    bucket.level >= 1 ? 0 : Math.ceil(((1 - bucket.level) * minuteMs) / limit)
  const bucketOf = (client: string, now: number) => {
    let bucket = clients.get(client)
    if (bucket === undefined) {
      if (clients.size >= maxClients) clients.delete(clients.keys().next().value!)
      bucket = { level: perClient, updatedAt: now }
      clients.set(client, bucket)
    }
    refill(bucket, perClient, now)
    return bucket
  }
  return {
    waitMs(client, now) {
      refill(all, overall, now)
      return Math.max(wait(all, overall), wait(bucketOf(client, now), perClient))
    },
    failed(client, now) {
      refill(all, overall, now)
      all.level -= 1
      bucketOf(client, now).level -= 1
    },
  }
}
