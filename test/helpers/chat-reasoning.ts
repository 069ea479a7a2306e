import type OpenAI from 'openai'

type Params = OpenAI.ChatCompletionCreateParamsNonStreaming

/**
 * One chat-completions turn as an app that talks to DeepSeek-style reasoning models runs it, and
 * the assistant message it keeps for the next turn. Unstreamed, the message as answered. Streamed
 * through the SDK's `stream()` helper, the helper's final message, except `reasoning_content`:
 * the helper keeps only the last delta of a member it does not know (`Object.assign`), so the app
 * accumulates the reasoning deltas itself, as DeepSeek's streaming example does.
 *
 * @see https://api-docs.deepseek.com/guides/thinking_mode
 */
export async function chatTurn(
  client: OpenAI,
  params: Params,
  stream: boolean,
): Promise<OpenAI.ChatCompletionMessage & { reasoning_content?: string }> {
  if (!stream) return (await client.chat.completions.create(params)).choices[0]!.message
  let reasoning: string | undefined
  const runner = client.chat.completions.stream({ ...params, stream: true })
  runner.on('chunk', (chunk) => {
    const delta = chunk.choices[0]?.delta as { reasoning_content?: unknown } | undefined
    if (typeof delta?.reasoning_content === 'string')
      reasoning = (reasoning ?? '') + delta.reasoning_content
  })
  const message = (await runner.finalChatCompletion()).choices[0]!.message
  return reasoning === undefined ? message : { ...message, reasoning_content: reasoning }
}
