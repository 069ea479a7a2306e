import { hashText, rendezvousScore } from './rendezvous'

/** How a pooled upstream spreads its calls over its keys. */
export type KeyRotation = 'round-robin' | 'least-used'

/** How long a pooled key stays out of rotation after the upstream refused it. */
export type KeyCooldowns = {
  /** After a 401 or 403: the key is wrong or revoked (default 3600000 ms, an hour). */
  rejectedMs: number
  /** After a quota or billing error (OpenAI `insufficient_quota`, a spend limit): default 600000 ms. */
  quotaMs: number
}

/** A group's policy for its pooled upstreams' keys. */
export type KeyPoolPolicy = {
  /** Which key the next call uses: in turn (default), or the one with the fewest calls in flight. */
  rotation?: KeyRotation | undefined
  /** How long a key the upstream refused (401, 403) stays out of rotation (default 3600000 ms). */
  rejectedCooldownMs?: number | undefined
  /** How long a key out of quota stays out of rotation (default 600000 ms). */
  quotaCooldownMs?: number | undefined
}

/** The defaults of `KeyCooldowns`. */
export const defaultKeyCooldowns: Readonly<KeyCooldowns> = Object.freeze({
  rejectedMs: 3_600_000,
  quotaMs: 600_000,
})

/** One pooled key as `health()` reports it: masked, and why it is out of rotation if it is. */
export type PooledKeyHealth = { masked: string; disabled?: string | undefined }

/**
 * The keys of one pooled upstream: which one the next attempt uses, which are out of rotation and
 * until when. Only masked forms are kept here; the provider holds the secrets and is told the
 * index (`UpstreamCall.credential`).
 */
export class KeyPool {
  private readonly disabledUntil: number[]
  private readonly reasons: (string | undefined)[]
  private readonly inFlight: number[]
  private readonly hashes: number[]
  private next = 0
  /** The keys' masked forms, by index. */
  readonly masked: readonly string[]
  private readonly rotation: KeyRotation
  private readonly cooldowns: Readonly<KeyCooldowns>

  constructor(masked: readonly string[], rotation: KeyRotation, cooldowns: Readonly<KeyCooldowns>) {
    this.masked = masked
    this.rotation = rotation
    this.cooldowns = cooldowns
    this.disabledUntil = masked.map(() => 0)
    this.reasons = masked.map(() => undefined)
    this.inFlight = masked.map(() => 0)
    // The index is what identifies a key for affinity: masked forms may repeat.
    this.hashes = masked.map((_, index) => hashText(`key#${index}`))
  }

  /** True when at least one key is in rotation now. */
  hasKey(now: number): boolean {
    for (const until of this.disabledUntil) if (until <= now) return true
    return false
  }

  /** Milliseconds until the first disabled key returns (when none is in rotation). */
  soonestReturnMs(now: number): number {
    let soonest = Infinity
    for (const until of this.disabledUntil) soonest = Math.min(soonest, until - now)
    return Math.max(0, soonest)
  }

  /**
   * The key of the next attempt, or undefined when every key is out of rotation. With a session
   * hash, the session keeps its key while the key is in rotation (Responses `encrypted_content`
   * and stored responses are bound to the OpenAI organisation of the key that made them).
   */
  take(now: number, sessionHash: number | undefined): number | undefined {
    const index =
      sessionHash !== undefined
        ? this.bySession(now, sessionHash)
        : this.rotation === 'least-used'
          ? this.leastUsed(now)
          : this.roundRobin(now)
    if (index !== undefined) this.inFlight[index]! += 1
    return index
  }

  /** The attempt on key `index` ended. */
  release(index: number): void {
    if (this.inFlight[index]! > 0) this.inFlight[index]! -= 1
  }

  /**
   * Takes key `index` out of rotation: for `rejectedMs` after a 401/403, else (quota) for
   * `quotaMs`. Returns the log line's account of it, with the masked key only.
   */
  disable(index: number, status: number, reason: string, now: number): string {
    const rejected = status === 401 || status === 403
    const cooldown = rejected ? this.cooldowns.rejectedMs : this.cooldowns.quotaMs
    this.disabledUntil[index] = now + cooldown
    const text = `${status} ${reason}`.slice(0, 200)
    this.reasons[index] = text
    return `key ${this.masked[index]} out of rotation for ${Math.round(cooldown / 1000)} s: ${text}`
  }

  /** Each key, masked, with the reason it is out of rotation if it is. */
  health(now: number): PooledKeyHealth[] {
    return this.masked.map((masked, index) =>
      this.disabledUntil[index]! > now ? { masked, disabled: this.reasons[index] } : { masked },
    )
  }

  private roundRobin(now: number): number | undefined {
    const count = this.masked.length
    for (let step = 0; step < count; step += 1) {
      const index = (this.next + step) % count
      if (this.disabledUntil[index]! <= now) {
        this.next = (index + 1) % count
        return index
      }
    }
    return undefined
  }

  /** Fewest attempts in flight; ties go round-robin, so idle keys are all used. */
  private leastUsed(now: number): number | undefined {
    const count = this.masked.length
    let best: number | undefined
    for (let step = 0; step < count; step += 1) {
      const index = (this.next + step) % count
      if (this.disabledUntil[index]! > now) continue
      if (best === undefined || this.inFlight[index]! < this.inFlight[best]!) best = index
    }
    if (best !== undefined) this.next = (best + 1) % count
    return best
  }

  private bySession(now: number, sessionHash: number): number | undefined {
    let best: number | undefined
    let bestScore = -Infinity
    for (let index = 0; index < this.masked.length; index += 1) {
      if (this.disabledUntil[index]! > now) continue
      const score = rendezvousScore(sessionHash, this.hashes[index]!, 1)
      if (score > bestScore) {
        best = index
        bestScore = score
      }
    }
    return best
  }
}
