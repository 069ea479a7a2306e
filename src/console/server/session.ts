import { base64UrlToUtf8, utf8ToBase64Url } from '../../internal/base64'
import { isJsonObject, parseJson } from '../../internal/json'
import type { ConsoleUser } from '../options'

/** A session as its cookie carries it, signed: who, until when, and its id (for sign-out). */
export type Session = { id: string; user: ConsoleUser; expiresAt: number }

const encoder = new TextEncoder()

/**
 * Signs and checks session cookies and CSRF tokens with HMAC-SHA-256 (Web Crypto, so every
 * runtime has it). A cookie is `<payload>.<signature>`, both base64url: it says who is signed in
 * and until when, and nothing secret. Signing out puts the session's id on a list this process
 * keeps until the session would have expired.
 */
export type SessionSigner = {
  issue(user: ConsoleUser, now: number): Promise<{ cookie: string; session: Session }>
  /** The session a cookie carries, or `undefined` when it is forged, expired or signed out. */
  read(cookie: string | undefined, now: number): Promise<Session | undefined>
  end(session: Session): void
  /** The CSRF token of a session (or of a browser's CSRF seed, for `authorize` users). */
  csrfToken(seed: string): Promise<string>
  /** Whether a presented CSRF token is the one of `seed`, compared in constant time. */
  checkCsrf(seed: string, token: string | null): Promise<boolean>
}

/** Builds a signer over `secret` (random when none is given) with sessions of `ttlMs`. */
export function createSessionSigner(secret: string | undefined, ttlMs: number): SessionSigner {
  const keyBytes =
    secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : encoder.encode(secret)
  const key = crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ])
  const ended = new Map<string, number>()

  const sign = async (text: string) =>
    bytesToBase64Url(
      new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(text))),
    )
  const verify = async (text: string, signature: string) => {
    const bytes = base64UrlToBytes(signature)
    if (bytes === undefined) return false
    return crypto.subtle.verify('HMAC', await key, bytes, encoder.encode(text))
  }

  return {
    async issue(user, now) {
      const session: Session = { id: randomId(), user, expiresAt: now + ttlMs }
      const payload = utf8ToBase64Url(JSON.stringify(session))
      return { cookie: `${payload}.${await sign(`session.${payload}`)}`, session }
    },
    async read(cookie, now) {
      if (cookie === undefined || cookie.length > 4096) return undefined
      const [payload, signature, ...rest] = cookie.split('.')
      if (payload === undefined || signature === undefined || rest.length > 0) return undefined
      if (!(await verify(`session.${payload}`, signature))) return undefined
      const session = readSession(base64UrlToUtf8(payload))
      if (session === undefined || session.expiresAt <= now) return undefined
      for (const [id, until] of ended) if (until <= now) ended.delete(id)
      return ended.has(session.id) ? undefined : session
    },
    end(session) {
      ended.set(session.id, session.expiresAt)
    },
    csrfToken: (seed) => sign(`csrf.${seed}`),
    async checkCsrf(seed, token) {
      return token !== null && token.length < 200 && (await verify(`csrf.${seed}`, token))
    },
  }
}

/** 128 random bits, base64url: a session id or a CSRF seed. */
export function randomId(): string {
  return bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16)))
}

function readSession(text: string | undefined): Session | undefined {
  if (text === undefined) return undefined
  const parsed = parseJson(text)
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined
  const { id, user, expiresAt } = parsed.value
  if (typeof id !== 'string' || typeof expiresAt !== 'number' || !isJsonObject(user)) {
    return undefined
  }
  const name = typeof user.name === 'string' ? user.name : undefined
  if (user.role === 'admin' || user.role === 'viewer') {
    return { id, expiresAt, user: { role: user.role, name } }
  }
  if (user.role === 'key' && typeof user.keyId === 'string') {
    return { id, expiresAt, user: { role: 'key', keyId: user.keyId, name } }
  }
  return undefined
}

function bytesToBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text) || text.length % 4 === 1) return undefined
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}
