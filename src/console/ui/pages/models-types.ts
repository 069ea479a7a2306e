/** A model of the catalogue, as `GET <mount>/api/models` gives it. */
export type CatalogueModel = {
  name: string
  pinnedName: string | null
  upstreamModel: string
  family: string
  contextWindow: number | null
  maxOutputTokens: number | null
  capabilities: {
    tools: boolean
    forcedToolChoice: boolean
    vision: boolean
    documents: boolean
    reasoning: string
    structuredOutput: string
  }
  fallbacks: string[]
}

export type Catalogue = {
  groupIdRouting: boolean
  groups: Array<{ id: string; protocol: string; models: CatalogueModel[] }>
}
