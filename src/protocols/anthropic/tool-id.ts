/**
 * Anthropic requires tool ids to match `^[a-zA-Z0-9_-]+$`; ids minted by other providers may not
 * (`functions.Bash:0` from Kimi, ids with `.` or `|`). The same deterministic rewrite is applied to
 * a call and to its result, so they still match (TOOL-H-03).
 */
export function anthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_')
  return clean === '' ? 'toolu_gateway' : clean
}
