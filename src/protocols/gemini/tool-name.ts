import type { ChatRequest } from '../../canonical/types'

/**
 * A tool name Gemini accepts: it must start with a letter or an
 * underscore, hold only letters, digits, `_`, `.`, `:` and `-`, and Gemini's errors quote a
 * 64-character limit (the SDK docs say 128; the stricter one is kept). The rewrite is
 * deterministic, so a call in history, its result and `allowedFunctionNames` all agree:
 * - other characters become `_`;
 * - a name starting with anything else gets a leading `_` (`1password` → `_1password`);
 * - the result is cut to 64 characters.
 * Names from OpenAI and Anthropic clients already match `^[a-zA-Z0-9_-]{1,64}$`, so in practice
 * only a leading digit is rewritten. Two names could in theory rewrite to the same one; the
 * gateway does not try to tell them apart. `renamedGeminiTools` gives the way back for responses.
 *
 * @see https://ai.google.dev/api/caching#FunctionDeclaration
 */
export function geminiToolName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_.:-]/g, '_')
  return (/^[a-zA-Z_]/.test(clean) ? clean : `_${clean}`).slice(0, 64)
}

/**
 * The original names of the tools `geminiToolName` rewrote for a request, keyed by the name
 * Gemini sees, so that response decoders can restore what the client declared.
 */
export function renamedGeminiTools(request: ChatRequest): Map<string, string> {
  const names = new Map<string, string>()
  for (const tool of request.tools ?? []) {
    const renamed = geminiToolName(tool.name)
    if (renamed !== tool.name) names.set(renamed, tool.name)
  }
  return names
}
