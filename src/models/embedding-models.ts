import { unknownModelProfile, type ModelProfileEntry } from './profile'

/**
 * Embedding models: their vectors' default length, whether they take a shorter one, and the most
 * tokens an input may hold. They have no output; the context window lists the input limit.
 *
 * @see https://platform.openai.com/docs/guides/embeddings#embedding-models
 * @see https://ai.google.dev/gemini-api/docs/embeddings
 */
function embedder(
  family: string,
  match: string[],
  dimensions: number,
  shortens: boolean,
  maxInputTokens: number,
  see: string,
): ModelProfileEntry {
  return {
    ...unknownModelProfile,
    family,
    match,
    contextWindow: maxInputTokens,
    reasoning: { kind: 'none' },
    see,
    embedding: { dimensions, shortens, maxInputTokens },
  }
}

const openai = 'https://platform.openai.com/docs/guides/embeddings#embedding-models'
const google = 'https://ai.google.dev/gemini-api/docs/embeddings'

export const embeddingModels: readonly ModelProfileEntry[] = [
  embedder('text-embedding-3-small', ['text-embedding-3-small*'], 1536, true, 8192, openai),
  embedder('text-embedding-3-large', ['text-embedding-3-large*'], 3072, true, 8192, openai),
  embedder('text-embedding-ada-002', ['text-embedding-ada-002*'], 1536, false, 8192, openai),
  // 3072 by default; Google recommends 768, 1536 or 3072 and takes 128 and up.
  embedder(
    'gemini-embedding-001',
    ['gemini-embedding-001*', 'gemini-embedding-exp*'],
    3072,
    true,
    2048,
    google,
  ),
  // Text, images, audio, video and PDFs in one space; 128 to 3072 dimensions.
  embedder('gemini-embedding-2', ['gemini-embedding-2*'], 3072, true, 8192, google),
  embedder('text-embedding-004', ['text-embedding-004*'], 768, true, 2048, google),
]
