/** A chat message as the mock reads it: only roles and text matter. */
export type MockMessage = { role: string; text: string }

/**
 * The mock's deterministic answer: it echoes the last user message, so that a demo and a test can
 * both see their own words come back.
 */
export function mockReply(messages: readonly MockMessage[], fixedReply?: string): string {
  if (fixedReply !== undefined) return fixedReply
  const lastUser = messages.findLast((message) => message.role === 'user')
  const text = lastUser?.text.trim() ?? ''
  return text === '' ? 'Hello from the model-gateway mock upstream.' : `You said: ${text}`
}

/** Splits a reply into the pieces a stream sends: words with their following space. */
export function splitIntoChunks(reply: string): string[] {
  const pieces = reply.match(/\S+\s*|\s+/g) ?? []
  return pieces.length === 0 ? [reply] : pieces
}
