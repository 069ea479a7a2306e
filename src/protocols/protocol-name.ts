/** The three wire protocol families the gateway speaks. */
export type ProtocolName = 'openai' | 'anthropic' | 'gemini'
