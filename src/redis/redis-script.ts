import type { RedisScriptClient } from './redis-client'

/** A Lua script run by its SHA-1, loaded on first use. */
export type RedisScript = {
  readonly source: string
  /** Runs the script: `EVALSHA`, then `EVAL` when the server answers `NOSCRIPT` (after a restart, a flush of scripts, or on a new Cluster node). */
  run(client: RedisScriptClient, keys: string[], args: string[]): Promise<unknown>
}

/**
 * Wraps a Lua script for `EVALSHA` with an `EVAL` fallback. Sending the SHA-1 costs 40 bytes per
 * call instead of the script's few kilobytes; `EVAL` also loads the script into the server's
 * cache, so the fallback happens once per server. The SHA-1 is computed with Web Crypto, so this
 * runs on every runtime.
 */
export function defineRedisScript(source: string): RedisScript {
  let sha: Promise<string> | undefined
  return {
    source,
    async run(client, keys, args) {
      sha ??= sha1Hex(source)
      try {
        return await client.evalsha(await sha, keys, args)
      } catch (error) {
        if (!isNoScriptError(error)) throw error
        return await client.eval(source, keys, args)
      }
    },
  }
}

/** True for the server's `NOSCRIPT` reply, whichever driver wrapped it. */
export function isNoScriptError(error: unknown): boolean {
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : undefined
  return message !== undefined && /(^|\W)NOSCRIPT\b/.test(message)
}

async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}
