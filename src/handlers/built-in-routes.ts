import { chatCompletionsRoutes } from './chat-completions'
import { countTokensRoutes } from './count-tokens'
import { embeddingsRoutes } from './embeddings'
import { geminiCountTokensRoutes } from './gemini-count-tokens'
import { geminiEmbedRoutes } from './gemini-embed'
import { geminiGenerateRoutes } from './gemini-generate'
import { geminiModelsRoutes } from './gemini-models'
import { keyUsageRoutes } from './key-usage'
import { listModelsRoutes } from './list-models'
import { messagesRoutes } from './messages'
import { responsesRoutes } from './responses'
import { getResponseRoutes } from './responses-get'
import type { RouteDefinition } from './route-definition'

/**
 * The gateway's routes: each capability's list, defined beside its handlers. The gateway compiles
 * them into its route table once, when it is built (`compileRoutes`); a new capability adds its
 * list here.
 */
export const builtInRoutes: readonly RouteDefinition[] = [
  ...chatCompletionsRoutes,
  ...messagesRoutes,
  ...countTokensRoutes,
  ...listModelsRoutes,
  ...keyUsageRoutes,
  ...responsesRoutes,
  ...getResponseRoutes,
  ...embeddingsRoutes,
  ...geminiModelsRoutes,
  ...geminiGenerateRoutes,
  ...geminiCountTokensRoutes,
  ...geminiEmbedRoutes,
]
