import type { ResponsesUsage } from './canonical-usage'
import type { ResponsesOutputItem } from './output-items'
import type { ResponsesEcho } from './request-decode'

/** A Response object as the gateway writes it (RESP-RES-01). */
export type ResponsesObject = ResponsesEcho & {
  id: string
  object: 'response'
  created_at: number
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed'
  background: false
  error: { code: string; message: string } | null
  incomplete_details: { reason: string } | null
  model: string
  output: ResponsesOutputItem[]
  service_tier: 'default'
  usage: ResponsesUsage | null
  user: null
}

/** What identifies one response: its id, creation time (Unix seconds) and the client's model name. */
export type ResponsesIdentity = {
  id: string
  createdAt: number
  model: string
  echo: ResponsesEcho
}

/**
 * A Response object in some state: the skeleton of `response.created` (`in_progress`, no output,
 * no usage) or a terminal one. `model` is the call name the client sent (ID-02).
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function responsesObject(
  identity: ResponsesIdentity,
  state: Pick<ResponsesObject, 'status' | 'output' | 'usage'> &
    Partial<Pick<ResponsesObject, 'error' | 'incomplete_details'>>,
): ResponsesObject {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    ...identity.echo,
    model: identity.model,
    output: state.output,
    service_tier: 'default',
    usage: state.usage,
    user: null,
  }
}
