import type { AssistantMessage, ReasoningPart } from '../../canonical/types'
import type { ModelProfile, ReasoningField } from '../../models/profile'
import { readReasoningOrigin, writtenBy, type ReasoningOrigin } from './reasoning-origin'

/**
 * The reasoning fields of an assistant message bound for an OpenAI-compatible upstream
 * (ADR 0018):
 *
 * - Reasoning this very model handed out — its `openai` origin names `model` — goes back as it
 *   came, whatever the model's name or profile: in the field it came in, the text byte for byte
 *   (`reasoning_details` as its entry, with the entry's other members). A model that never
 *   returned reasoning has none to get back.
 * - Any other reasoning — another model's or vendor's, or history the gateway did not produce —
 *   goes back only when the profile says the model takes it (`reasoningHistory`), as the joined
 *   text in the profile's `reasoningField`. An unknown model gets none: strict servers (OpenAI,
 *   Cerebras) refuse a member they do not know.
 *
 * @returns the members to spread into the message, `{}` for none.
 */
export function assistantReasoningFields(
  message: AssistantMessage,
  model: string,
  profile: ModelProfile,
): Record<string, unknown> {
  const reasoning = message.content.filter(
    (part): part is ReasoningPart => part.type === 'reasoning',
  )
  if (reasoning.length === 0) return {}
  const own = reasoning.flatMap((part) => {
    const origin = readReasoningOrigin(part.signature)
    return origin !== undefined && writtenBy(origin, model) ? [{ origin, text: part.text }] : []
  })
  if (own.length > 0) return restored(own)
  if (!profile.reasoningHistory) return {}
  const text = reasoning.map((part) => part.text).join('')
  return text === '' ? {} : inField(profile.reasoningField, text)
}

/** The model's own reasoning, in the field of its first part, as it came. */
function restored(parts: ReadonlyArray<{ origin: ReasoningOrigin; text: string }>) {
  const field = parts[0]!.origin.field
  if (field !== 'reasoning_details') return { [field]: parts.map((part) => part.text).join('') }
  return {
    reasoning_details: parts.map(({ origin, text }) => ({
      ...(origin.detail ?? { type: 'reasoning.text' }),
      text,
    })),
  }
}

function inField(field: ReasoningField, text: string): Record<string, unknown> {
  return field === 'reasoning_details'
    ? { reasoning_details: [{ type: 'reasoning.text', text }] }
    : { [field]: text }
}
