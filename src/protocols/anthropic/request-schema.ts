import { shape as z, type Infer } from '../../http/body-shape'
import { isJsonObject } from '../../internal/json'
import type { ArrayLimit } from '../../http/array-limits'
import { maxConversationItems, maxListItems } from '../../http/input-limits'

type FieldKind = 'string' | 'object'

/**
 * The fields each content block type must carry, and their JSON type, as Anthropic requires them.
 * A Map keyed by the client's `type`: a block typed `constructor` or `__proto__` is merely an
 * unknown type.
 */
const requiredFields = new Map<string, ReadonlyArray<readonly [string, FieldKind]>>([
  ['text', [['text', 'string']]],
  ['image', [['source', 'object']]],
  ['document', [['source', 'object']]],
  [
    'tool_use',
    [
      ['id', 'string'],
      ['name', 'string'],
      ['input', 'object'],
    ],
  ],
  ['tool_result', [['tool_use_id', 'string']]],
  ['thinking', [['thinking', 'string']]],
  ['redacted_thinking', [['data', 'string']]],
])

const block = z.looseObject({ type: z.string() }).superRefine((value, context) => {
  for (const [field, kind] of requiredFields.get(value.type) ?? []) {
    const item = Object.hasOwn(value, field) ? value[field] : undefined // lookup-safe: own
    const ok = kind === 'string' ? typeof item === 'string' : isJsonObject(item)
    if (!ok) {
      context.addIssue({
        code: 'custom',
        path: [field],
        message: `a ${value.type} block needs \`${field}\` (${kind === 'string' ? 'a string' : 'an object'})`,
      })
    }
  }
})

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() })

const message = z.looseObject({
  // Claude Code ≥ 2.1.153 may put system messages inside `messages` (gateway-landscape §E.9).
  role: z.oneOf(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(block)]),
})

const fields = {
  model: z.string().min(1, '`model` must be a non-empty string.'),
  messages: z.array(message).min(1, '`messages` must be a non-empty array.'),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
  tool_choice: z
    .looseObject({ type: z.oneOf(['auto', 'any', 'none', 'tool']), name: z.string().optional() })
    .optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().nonnegative().optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  thinking: z
    .looseObject({
      type: z.oneOf(['enabled', 'disabled', 'adaptive']),
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
export type AnthropicMessagesRequest = Infer<typeof anthropicMessagesRequestSchema>

/**
 * A count_tokens request: a messages request without `max_tokens`.
 *
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 */
export const anthropicCountTokensRequestSchema = z.looseObject(fields)

/** The arrays of a messages or count_tokens body the gateway walks, with their caps (docs/security.md). */
export const anthropicArrayLimits: readonly ArrayLimit[] = [
  { path: 'messages', max: maxConversationItems },
  { path: 'messages[].content', max: maxListItems },
  { path: 'messages[].content[].content', max: maxListItems },
  { path: 'system', max: maxListItems },
  { path: 'tools', max: maxListItems },
  { path: 'stop_sequences', max: maxListItems },
]
