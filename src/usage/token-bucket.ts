import { windowMs } from './key-limits'

/**
 * Token-bucket arithmetic for the per-minute windows. A bucket holds up to `limit` units and refills
 * continuously, `limit` units per minute (OpenAI and Anthropic describe their own limits this way).
 *
 * Levels are kept in unit·milliseconds (units × 60 000), so that a refill of `limit` per
 * millisecond is an integer and no float rounding ever drifts: exact up to limits of about 10¹¹
 * per minute. The Redis meter's Lua (`src/redis/lua/`) does the same arithmetic on the same scale.
 *
 * @module
 */

/** A bucket as stored: its level in unit·ms, and when it was last brought up to date. */
export type Bucket = { level: number; updatedAt: number }

/** The capacity of a bucket, in unit·ms. */
export function bucketCapacity(limit: number): number {
  return limit * windowMs
}

/** The level of a bucket at `nowMs`: refilled since its last update, never past full. A missing bucket is full. */
export function refilledLevel(bucket: Bucket | undefined, limit: number, nowMs: number): number {
  const capacity = bucketCapacity(limit)
  if (bucket === undefined) return capacity
  // A clock that went backwards refills nothing rather than draining the bucket.
  const elapsed = Math.max(0, nowMs - bucket.updatedAt)
  return Math.min(capacity, bucket.level + elapsed * limit)
}

/**
 * What one request costs a bucket, in unit·ms. A request larger than the whole bucket costs a full
 * bucket, so that it waits for one instead of being refused for ever.
 */
export function bucketCost(units: number, limit: number): number {
  return Math.min(Math.max(0, units), limit) * windowMs
}

/** Whole units left in a bucket (0 while it is in debt). */
export function bucketRemaining(level: number): number {
  return Math.max(0, Math.floor(level / windowMs))
}

/** Milliseconds until a bucket is full again. */
export function bucketResetMs(level: number, limit: number): number {
  return Math.max(0, Math.ceil((bucketCapacity(limit) - level) / limit))
}

/** Milliseconds until a bucket holds `cost` unit·ms. */
export function bucketWaitMs(level: number, cost: number, limit: number): number {
  return Math.max(0, Math.ceil((cost - level) / limit))
}
