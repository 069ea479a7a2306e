/**
 * The wire protocol families the gateway speaks. `responses` is OpenAI's Responses API: clients
 * call `/v1/responses`, and an OpenAI upstream marked `responses: true` is called there.
 * `converse` is AWS Bedrock's Converse API: an upstream family only, which no client route speaks
 * (every client protocol is translated to it).
 */
export type ProtocolName = 'openai' | 'anthropic' | 'gemini' | 'responses' | 'converse'

/** The protocols a client speaks to the gateway: every family but the upstream-only `converse`. */
export type ClientProtocol = Exclude<ProtocolName, 'converse'>

/** The protocol a group is configured with: the family of its upstreams (`responses` is an OpenAI upstream's flag). */
export type GroupProtocol = Exclude<ProtocolName, 'responses'>

/** The error shapes a client route answers in: one per client protocol. */
export type ErrorShape = 'openai' | 'anthropic' | 'gemini' | 'responses'
