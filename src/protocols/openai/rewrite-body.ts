import { applyEdits, findTopLevelMembers, type TextEdit } from '../../internal/json-members'
import { isJsonObject } from '../../internal/json'
import type { OpenAIChatRequest } from './request-schema'

/** What passthrough changes in a chat-completions body. */
export type OpenAIBodyRewrite = {
  /** The model name the upstream expects. */
  upstreamModel: string
  /** Ask the upstream for a usage chunk (`stream_options.include_usage`), so usage can be metered. */
  includeUsage: boolean
}

/**
 * Rewrites a chat-completions body for passthrough: only `model` (and, on streams,
 * `stream_options.include_usage`) change. The client's text is spliced, not re-encoded, so unknown
 * fields, key order and number formatting reach the upstream exactly as sent.
 */
export function rewriteOpenAIChatBody(
  text: string,
  request: OpenAIChatRequest,
  rewrite: OpenAIBodyRewrite,
): string {
  const needsModel = request.model !== rewrite.upstreamModel
  const needsUsage = rewrite.includeUsage && request.stream_options?.include_usage !== true
  if (!needsModel && !needsUsage) return text
  const found = findTopLevelMembers(text)
  const modelSpan = found?.members.get('model')
  if (found === undefined || modelSpan === undefined) return reencode(request, rewrite)
  const edits: TextEdit[] = []
  if (needsModel) {
    edits.push({
      start: modelSpan.valueStart,
      end: modelSpan.valueEnd,
      text: JSON.stringify(rewrite.upstreamModel),
    })
  }
  if (needsUsage) {
    const optionsSpan = found.members.get('stream_options')
    if (optionsSpan === undefined) {
      const insertAt = found.openBrace + 1
      edits.push({
        start: insertAt,
        end: insertAt,
        text: '"stream_options":{"include_usage":true},',
      })
    } else {
      edits.push({
        start: optionsSpan.valueStart,
        end: optionsSpan.valueEnd,
        text: JSON.stringify(withIncludeUsage(request.stream_options)),
      })
    }
  }
  return applyEdits(text, edits)
}

function withIncludeUsage(options: unknown): Record<string, unknown> {
  return { ...(isJsonObject(options) ? options : {}), include_usage: true }
}

/** The fallback for bodies whose keys are spelled with escapes: correct, but re-encoded. */
function reencode(request: OpenAIChatRequest, rewrite: OpenAIBodyRewrite): string {
  const body: Record<string, unknown> = { ...request, model: rewrite.upstreamModel }
  if (rewrite.includeUsage) body['stream_options'] = withIncludeUsage(request.stream_options)
  return JSON.stringify(body)
}
