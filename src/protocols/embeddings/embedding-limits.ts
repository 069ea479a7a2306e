/**
 * The bounds on embedding requests, from the vendors' own limits, so that a request the upstream
 * would refuse is refused by the gateway first, with a 400 naming the field, before it is metered.
 *
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 * @see https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 * @module
 */

/** The most inputs one OpenAI `/v1/embeddings` request may hold (OpenAI: "2048 dimensions or less"). */
export const maxOpenAIEmbeddingInputs = 2048

/** The most tokens one OpenAI embedding input may hold (8192 for every OpenAI embedding model). */
export const maxTokensPerEmbeddingInput = 8192

/** The most tokens all inputs of one OpenAI embedding request may hold together. */
export const maxTokensPerEmbeddingRequest = 300_000

/** The most requests one Gemini `batchEmbedContents` call may hold (Google: at most 100). */
export const maxGeminiBatchRequests = 100

/** The largest `dimensions` / `outputDimensionality` accepted (3072, the largest model's). */
export const maxEmbeddingDimensions = 65_536

/**
 * Bytes one float of an embedding takes in a JSON answer, at most: OpenAI and Google write up to
 * 17 significant digits, a sign, an exponent and a comma (`-1.2345678901234567e-05,` is 24).
 */
export const jsonBytesPerFloat = 24
