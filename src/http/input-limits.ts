/**
 * The limits on client bodies that are not configurable, documented in docs/security.md:
 * they bound the work one request can cause, and each is far above what real clients send.
 *
 * @module
 */

/**
 * The deepest nesting of objects and arrays a client body may have. Checked by a linear scan of
 * the text before anything walks the parsed value recursively (normalisers, schema sanitisers,
 * `JSON.stringify` of translated requests), so no body can overflow the stack. A request body is
 * about six levels deep before any user data (body → messages → message → content → block →
 * input); tool schemas and arguments nest a few dozen levels at most.
 */
export const maxJsonDepth = 128

/**
 * The most items the gateway reads from one conversation array (`messages`, Gemini `contents`).
 * Long agent sessions (Claude Code) reach a few thousand messages; this is fifty times that.
 */
export const maxConversationItems = 100_000

/**
 * The most items of any other array the gateway walks: content blocks and parts, tool calls,
 * tools and function declarations, stop sequences.
 */
export const maxListItems = 10_000
