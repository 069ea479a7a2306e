/**
 * The wire protocol families the gateway speaks. `responses` is OpenAI's Responses API: clients
 * call `/v1/responses`, and an OpenAI upstream marked `responses: true` is called there.
 */
export type ProtocolName = 'openai' | 'anthropic' | 'gemini' | 'responses'

/** The error shapes a client route answers in: one per client protocol. */
export type ErrorShape = 'openai' | 'anthropic' | 'gemini' | 'responses'
