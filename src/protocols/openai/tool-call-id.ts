/** OpenAI rejects a `tool_call_id` longer than 40 characters. */
const maxLength = 40

/**
 * An OpenAI-safe tool-call id. Ids minted elsewhere can be longer (Gemini's, which carry a thought
 * signature, are), so a long id is replaced by `call_` and a 64-bit FNV-1a hash of it: the same
 * on an assistant's call and on the tool result that answers it, which is all OpenAI checks.
 */
export function openAIToolCallId(id: string): string {
  if (id.length <= maxLength) return id
  let hash = 0xcbf29ce484222325n
  for (let index = 0; index < id.length; index += 1) {
    hash ^= BigInt(id.charCodeAt(index))
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return `call_${hash.toString(16).padStart(16, '0')}`
}
