import { z } from 'zod'
import type { ArrayLimit } from '../../http/array-limits'
import { maxConversationItems, maxListItems } from '../../http/input-limits'

/** The fields each content block type must carry (checked when the gateway reads them). */
const requiredFields: Record<string, readonly string[]> = {
  text: ['text'],
  image: ['source'],
  document: ['source'],
  tool_use: ['id', 'name', 'input'],
  tool_result: ['tool_use_id'],
  thinking: ['thinking'],
  redacted_thinking: ['data'],
}

const block = z.looseObject({ type: z.string() }).superRefine((value, context) => {
  for (const field of requiredFields[value.type] ?? []) {
    if (!(field in value)) {
      context.addIssue({
        code: 'custom',
        path: [field],
        message: `a ${value.type} block needs \`${field}\``,
      })
    }
  }
})

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() })

const message = z.looseObject({
  // Claude Code ≥ 2.1.153 may put system messages inside `messages` (gateway-landscape §E.9).
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(block)]),
})

const fields = {
  model: z.string().min(1, '`model` must be a non-empty string.'),
  messages: z.array(message).min(1, '`messages` must be a non-empty array.'),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
  tool_choice: z
    .looseObject({ type: z.enum(['auto', 'any', 'none', 'tool']), name: z.string().optional() })
    .optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().nonnegative().optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  thinking: z
    .looseObject({
      type: z.enum(['enabled', 'disabled', 'adaptive']),
      budget_tokens: z.number().int().optional(),
    })
    .optional(),
  stream: z.boolean().optional(),
}

/**
 * The fields of a messages request that the gateway reads. `max_tokens` is required, as Anthropic
 * requires it; unknown fields are allowed and survive passthrough.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export const anthropicMessagesRequestSchema = z.looseObject({
  ...fields,
  max_tokens: z
    .number({ error: '`max_tokens` is required: a positive integer.' })
    .int()
    .positive('`max_tokens` must be a positive integer.'),
})

/** A validated messages request. */
export type AnthropicMessagesRequest = z.infer<typeof anthropicMessagesRequestSchema>

/**
 * A count_tokens request: a messages request without `max_tokens`.
 *
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 */
export const anthropicCountTokensRequestSchema = z.looseObject(fields)

/** The arrays of a messages or count_tokens body the gateway walks, with their caps (README). */
export const anthropicArrayLimits: readonly ArrayLimit[] = [
  { path: 'messages', max: maxConversationItems },
  { path: 'messages[].content', max: maxListItems },
  { path: 'messages[].content[].content', max: maxListItems },
  { path: 'system', max: maxListItems },
  { path: 'tools', max: maxListItems },
  { path: 'stop_sequences', max: maxListItems },
]
