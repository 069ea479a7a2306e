import { applyEdits, findTopLevelMembers } from '../../internal/json-members'
import { hasGatewayThinking, withoutGatewayThinking } from './thinking-signature'

/** The parts of a messages or count_tokens body that passthrough reads. */
type PassthroughBody = { model: string; messages: Array<{ content: unknown }> }

/**
 * The body an Anthropic upstream gets on passthrough (messages and count_tokens alike): the
 * client's text with only the upstream model spliced in, nothing else re-encoded. A body carrying
 * gateway-tagged thinking, which Anthropic would reject, is the one exception: it is re-encoded
 * without those blocks (checklist TOOL-H-10).
 */
export function anthropicPassthroughBody(
  text: string,
  body: PassthroughBody,
  upstreamModel: string,
): string {
  if (hasGatewayThinking(text)) {
    return JSON.stringify(withoutGatewayThinking({ ...body, model: upstreamModel }))
  }
  if (body.model === upstreamModel) return text
  const span = findTopLevelMembers(text)?.members.get('model')
  // A key spelled with escapes is not found by the scanner: correct, but re-encoded.
  if (span === undefined) return JSON.stringify({ ...body, model: upstreamModel })
  return applyEdits(text, [
    { start: span.valueStart, end: span.valueEnd, text: JSON.stringify(upstreamModel) },
  ])
}
