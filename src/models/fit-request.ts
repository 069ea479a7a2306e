import type { ChatRequest } from '../canonical/types'
import { GatewayError } from '../errors'
import type { ModelTarget } from './model-target'

/**
 * Refuses, with a 400 in the caller's protocol, input the target model does not take (images to
 * a text-only model, PDFs to a model without document input): the upstream would refuse it too,
 * with an error that does not say which model or why.
 */
export function checkModelInput(request: ChatRequest, target: ModelTarget): void {
  const { profile } = target
  if (profile.imageInput && profile.documentInput) return
  for (const message of request.messages) {
    if (message.role !== 'user' && message.role !== 'tool') continue
    const parts =
      message.role === 'user'
        ? message.content
        : message.content.flatMap((result) => result.content)
    for (const part of parts) {
      if (part.type === 'image' && !profile.imageInput) throw refused(request.model, 'image')
      if (part.type === 'file' && part.source.kind !== 'text' && !profile.documentInput)
        throw refused(request.model, 'document')
    }
  }
}

/**
 * The client's output limit, capped at the model's maximum output: an upstream refuses a larger
 * one ("max_tokens: 64001 > 64000"), so it is lowered and the change noted.
 */
export function cappedOutputLimit(
  requested: number | undefined,
  target: ModelTarget,
  field: string,
): number | undefined {
  const maximum = target.profile.maxOutputTokens
  if (requested === undefined || maximum === undefined || requested <= maximum) return requested
  target.adjustments.push({
    field,
    change: 'clamped',
    from: requested,
    to: maximum,
    reason: `${target.profile.family} writes at most ${maximum} output tokens`,
  })
  return maximum
}

/**
 * `temperature` within the model's range and the wire's (Anthropic takes 0–1 for every model,
 * Kimi too; GEN-02, pinned: clamp).
 */
export function cappedTemperature(
  temperature: number,
  target: ModelTarget,
  options: { field?: string; wireMaximum?: number } = {},
): number {
  const maximum = Math.min(target.profile.maxTemperature, options.wireMaximum ?? Infinity)
  if (temperature <= maximum) return temperature
  target.adjustments.push({
    field: options.field ?? 'temperature',
    change: 'clamped',
    from: temperature,
    to: maximum,
    reason: `${target.profile.family} takes temperatures up to ${maximum}`,
  })
  return maximum
}

/** Notes a field dropped for the target model's sake. */
export function dropped(target: ModelTarget, field: string, from: unknown, reason: string): void {
  target.adjustments.push({ field, change: 'dropped', from, reason })
}

function refused(model: string, kind: 'image' | 'document'): GatewayError {
  return new GatewayError(
    'invalid_request',
    `The model \`${model}\` does not take ${kind} input; remove the ${kind} or use another model.`,
  )
}
