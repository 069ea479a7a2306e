import { shape as z, type Infer } from '../../http/body-shape'
import type { ArrayLimit } from '../../http/array-limits'
import { maxConversationItems, maxListItems } from '../../http/input-limits'

const contentPart = z.looseObject({ type: z.string() })
const content = z.union([z.string(), z.array(contentPart)])

/**
 * The fields of a chat-completions request that the gateway reads, checked at the trust boundary.
 * Loose objects: unknown fields are allowed and, on passthrough, reach the upstream untouched.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export const openAIChatRequestSchema = z.looseObject({
  model: z.string().min(1, '`model` must be a non-empty string.'),
  messages: z
    .array(
      z.discriminatedUnion('role', [
        ['system', z.looseObject({ role: z.literal('system'), content })],
        ['developer', z.looseObject({ role: z.literal('developer'), content })],
        ['user', z.looseObject({ role: z.literal('user'), content })],
        ['assistant', z.looseObject({ role: z.literal('assistant'), content: content.nullish() })],
        ['tool', z.looseObject({ role: z.literal('tool'), content, tool_call_id: z.string() })],
        [
          'function',
          z.looseObject({
            role: z.literal('function'),
            content: content.nullish(),
            name: z.string(),
          }),
        ],
      ]),
    )
    .min(1, '`messages` must be a non-empty array.'),
  temperature: z.number().min(0).max(2).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
})

/** A validated chat-completions request. */
export type OpenAIChatRequest = Infer<typeof openAIChatRequestSchema>

/** The arrays of a chat-completions body the gateway walks, with their caps (docs/security.md). */
export const openAIArrayLimits: readonly ArrayLimit[] = [
  { path: 'messages', max: maxConversationItems },
  { path: 'messages[].content', max: maxListItems },
  { path: 'messages[].tool_calls', max: maxListItems },
  { path: 'tools', max: maxListItems },
  { path: 'stop', max: maxListItems },
]
