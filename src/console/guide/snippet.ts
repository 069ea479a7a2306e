/**
 * The shape of one snippet of the call guide.
 *
 * @module
 */

/** One snippet of the guide. */
export type Snippet = {
  id: string
  /** The section it belongs to (`HTTP`, `OpenAI SDK`, `Coding agents`…). */
  section: string
  title: string
  language: 'sh' | 'ts' | 'python' | 'toml' | 'json' | 'text'
  code: string
  /** Where it goes, or what to know, in a sentence. */
  note?: string
}
