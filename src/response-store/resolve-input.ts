import { stringOf } from '../internal/json'
import type { ReasoningPart } from '../canonical/types'
import { GatewayError } from '../errors'
import { readReasoningBlob } from '../protocols/responses/reasoning-blob'
import type { ResponsesInputItem, ResponsesRequest } from '../protocols/responses/request-schema'
import type { ResponseStore, StoredJson } from './response-store'

/** A Responses request's input, with what the response store knows filled in. */
export type ResolvedInput = {
  /** The full conversation: the previous response's input and output, then this request's input. */
  items: ResponsesInputItem[]
  /** Reasoning the store holds for reasoning items the client sent back without their blob. */
  storedReasoning: Map<string, ReasoningPart>
  /** Whether anything came from the store (`previous_response_id` or an `item_reference`). */
  expanded: boolean
}

/**
 * Resolves `previous_response_id` and `item_reference`s from the response store, and finds the
 * stored reasoning of reasoning items sent back by id only (the Agents SDK replays them so).
 *
 * With `strict` (a translated upstream, which cannot know any response id), an id the store does
 * not hold is a 400 that says how to fix the request. Without (an upstream that speaks Responses
 * and keeps its own responses), such ids are left for the upstream.
 */
export async function resolveResponsesInput(
  body: ResponsesRequest,
  store: ResponseStore,
  keyId: string,
  strict: boolean,
): Promise<ResolvedInput> {
  const own: ResponsesInputItem[] =
    typeof body.input === 'string'
      ? [{ type: 'message', role: 'user', content: body.input }]
      : [...(body.input ?? [])]
  const items: ResponsesInputItem[] = []
  let expanded = false
  const previousId = body.previous_response_id
  if (typeof previousId === 'string') {
    const previous = await reading(store.get(keyId, previousId))
    if (previous !== undefined) {
      items.push(...previous.input, ...previous.response.output)
      expanded = true
    } else if (strict) {
      throw new GatewayError(
        'invalid_request',
        `Previous response with id '${previousId}' not found. The gateway keeps responses created with \`store: true\` for a limited time and only for the key that created them; send the whole conversation as input items (with \`store: false\`) instead of \`previous_response_id\`.`,
        { param: 'previous_response_id' },
      )
    }
  }
  const wanted = new Set<string>()
  for (const item of own) {
    if (item.type === 'item_reference') wanted.add(stringOf(item['id']))
    // Only reasoning sent back by id alone: an item with a blob (the gateway's, or OpenAI's on a
    // passthrough turn) carries what it needs, so a Codex turn costs the store nothing.
    else if (
      item.type === 'reasoning' &&
      (item['encrypted_content'] === undefined || item['encrypted_content'] === null) &&
      typeof item['id'] === 'string'
    )
      wanted.add(item['id'])
  }
  const found: ReadonlyMap<string, StoredJson> =
    wanted.size === 0 ? new Map() : await reading(store.items(keyId, [...wanted]))
  own.forEach((item, index) => {
    if (item.type !== 'item_reference') {
      items.push(item)
      return
    }
    const stored = found.get(stringOf(item['id']))
    if (stored !== undefined) {
      items.push(stored)
      expanded = true
    } else if (strict) {
      throw new GatewayError(
        'invalid_request',
        `Item with id '${stringOf(item['id'])}' not found. The gateway resolves \`item_reference\` only to items of responses it stored (\`store: true\`) for this key; send the full item instead, or set \`store: false\` so that clients such as the AI SDK send full items.`,
        { param: `input[${index}]` },
      )
    } else {
      items.push(item)
    }
  })
  const storedReasoning = new Map<string, ReasoningPart>()
  for (const [id, item] of found) {
    const part =
      item['type'] === 'reasoning' ? readReasoningBlob(item['encrypted_content']) : undefined
    if (part !== undefined) storedReasoning.set(id, part)
  }
  return { items, storedReasoning, expanded }
}

/**
 * A store read, whose failure is a 503 that says what to do — never a 400 claiming the response
 * does not exist, nor a 500.
 */
async function reading<T>(read: T | Promise<T>): Promise<T> {
  try {
    return await read
  } catch (cause) {
    throw new GatewayError(
      'overloaded',
      'The response store did not answer. Retry, or send the whole conversation as input items with `store: false`.',
      { status: 503, cause },
    )
  }
}
