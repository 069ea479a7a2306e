import type { RedisScriptClient } from '../../src/redis/index'

/** CRC16-XMODEM, Redis Cluster's key hash (polynomial 0x1021, initial value 0). */
function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit += 1) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    }
  }
  return crc
}

/**
 * The Cluster hash slot of a key, as `CLUSTER KEYSLOT` computes it: only the text between the
 * first `{` and the next `}` is hashed, when that text is not empty.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{')
  if (open >= 0) {
    const close = key.indexOf('}', open + 1)
    if (close > open + 1) key = key.slice(open + 1, close)
  }
  return crc16(new TextEncoder().encode(key)) % 16384
}

/** The slots of one script call's keys. */
export function slotsOf(keys: readonly string[]): Set<number> {
  return new Set(keys.map(keySlot))
}

/**
 * A script client that records the keys of every call, so a test can check that each call stays
 * in one slot (and, with `refuseCrossSlot`, answers as Redis Cluster does when it does not).
 */
export function slotRecordingClient(
  inner: RedisScriptClient,
  options: { refuseCrossSlot?: boolean } = {},
): RedisScriptClient & { calls: string[][] } {
  const calls: string[][] = []
  const check = (keys: string[]) => {
    calls.push(keys)
    if (options.refuseCrossSlot === true && slotsOf(keys).size > 1) {
      throw new Error("CROSSSLOT Keys in request don't hash to the same slot")
    }
  }
  return {
    calls,
    eval: async (script, keys, args) => {
      check(keys)
      return inner.eval(script, keys, args)
    },
    evalsha: async (sha, keys, args) => {
      check(keys)
      return inner.evalsha(sha, keys, args)
    },
  }
}
