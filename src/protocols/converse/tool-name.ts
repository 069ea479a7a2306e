import type { ChatRequest } from '../../canonical/types'

/**
 * A tool name Converse accepts: 1–64 letters, digits, `_` and `-`. Names from OpenAI and
 * Anthropic clients already match; Gemini clients may use `.` and `:`, which become `_`, and a
 * longer name is cut to 64 characters. The rewrite is deterministic, so a declared tool, a call
 * in history and a forced tool choice agree; `renamedConverseTools` gives the way back.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html
 */
export function converseToolName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)
  return clean === '' ? '_' : clean
}

/**
 * The declared names of the tools `converseToolName` rewrote for a request, keyed by the name
 * Converse sees, so that the decoders restore what the client declared.
 */
export function renamedConverseTools(request: ChatRequest): Map<string, string> {
  const names = new Map<string, string>()
  for (const tool of request.tools ?? []) {
    const renamed = converseToolName(tool.name)
    if (renamed !== tool.name) names.set(renamed, tool.name)
  }
  return names
}
