const encoder = new TextEncoder()

/**
 * How a key's secret becomes the hash it is known by: SHA-256, lowercase hex. Synchronous where
 * the runtime can hash without a thread-pool hop (`nodeHashKey` from `model-gateway/node`), a
 * promise with Web Crypto (`hashKey`). Either way, no secret is kept.
 */
export type KeyHasher = (secret: string) => string | Promise<string>

/**
 * SHA-256 of a key, as lowercase hex, with Web Crypto: every runtime has it. Keys are high-entropy
 * random strings, so a plain fast hash is the standard choice (LiteLLM, Helicone and TensorZero do
 * the same); a slow password hash would only add latency to every request.
 */
export async function hashKey(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(secret))
  return toHex(new Uint8Array(digest))
}

function toHex(bytes: Uint8Array): string {
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}
