import { floatsToBase64, type EmbeddingVectors } from './embedding-vectors'

/**
 * OpenAI's embedding list, written as text piece by piece and joined once: a 100-input batch of
 * 3072 floats is megabytes, and building it by appending to one string, or by stringifying a
 * second copy of every vector inside one big object, would copy it over and over.
 *
 * @see https://platform.openai.com/docs/api-reference/embeddings/object
 */
export function openAIEmbeddingList(
  vectors: EmbeddingVectors,
  options: { encoding: 'float' | 'base64'; model: string; promptTokens: number },
): string {
  const parts: string[] = ['{"object":"list","data":[']
  vectors.forEach((values, index) => {
    if (index > 0) parts.push(',')
    parts.push(`{"object":"embedding","index":${index},"embedding":`)
    parts.push(
      options.encoding === 'base64' ? `"${floatsToBase64(values)}"` : JSON.stringify(values),
    )
    parts.push('}')
  })
  const tokens = options.promptTokens
  parts.push(
    `],"model":${JSON.stringify(options.model)},"usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`,
  )
  return parts.join('')
}

/**
 * Gemini's answer: `{"embedding":{"values":[…]}}` for `:embedContent`, `{"embeddings":[…]}` for
 * `:batchEmbedContents`, in request order.
 *
 * @see https://ai.google.dev/api/embeddings#EmbedContentResponse
 */
export function geminiEmbeddingAnswer(vectors: EmbeddingVectors, batch: boolean): string {
  if (!batch) return `{"embedding":{"values":${JSON.stringify(vectors[0] ?? [])}}}`
  const parts: string[] = ['{"embeddings":[']
  vectors.forEach((values, index) => {
    if (index > 0) parts.push(',')
    parts.push(`{"values":${JSON.stringify(values)}}`)
  })
  parts.push(']}')
  return parts.join('')
}
