/**
 * Converse takes tool-use ids of 1–64 letters, digits, `_` and `-`. Ids minted elsewhere may not
 * match (`functions.Bash:0` from Kimi, long Responses API ids), so every id is rewritten the same
 * deterministic way on a call and on its result, which then still match (TOOL-H-03): other
 * characters become `_`, and an id over 64 characters keeps its start and gains a digest of the
 * whole, so that two long ids with a common start stay apart.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html
 */
export function converseToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_')
  if (clean === '') return 'tooluse_gateway'
  return clean.length <= 64 ? clean : `${clean.slice(0, 55)}_${fnv1a(id)}`
}

/** FNV-1a over UTF-16 code units, as 8 hex digits: a digest for ids, not for security. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16).padStart(8, '0')
}
