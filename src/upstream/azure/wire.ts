import { unservedOperation, type HttpWire } from '../http-wire'

/**
 * The paths of an Azure OpenAI resource. Without an `apiVersion`, the v1 API
 * (`/openai/v1/chat/completions`, `/openai/v1/responses`, `/openai/v1/embeddings`), which takes the
 * deployment as the body's `model` and no `api-version`. With one, the deployment URLs
 * (`/openai/deployments/{deployment}/chat/completions?api-version=…`): the deployment is the
 * call's upstream model. The Responses API has no deployment URL, so a Responses call always goes
 * to the v1 path, `apiVersion` or not. The key goes in `api-key`.
 *
 * @see https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle
 */
export function azureWire(apiVersion: string | undefined): HttpWire {
  return {
    path(call) {
      const operation = operationPath(call.operation)
      if (operation === undefined) throw unservedOperation('Azure OpenAI', call)
      if (apiVersion === undefined || operation === '/responses') return `/openai/v1${operation}`
      const deployment = encodeURIComponent(call.model)
      return `/openai/deployments/${deployment}${operation}?api-version=${encodeURIComponent(apiVersion)}`
    },
    credentialHeader: (apiKey) => ['api-key', apiKey],
  }
}

function operationPath(operation: string): string | undefined {
  switch (operation) {
    case 'chat-completions':
      return '/chat/completions'
    case 'responses':
      return '/responses'
    case 'embeddings':
      return '/embeddings'
    default:
      return undefined
  }
}

/**
 * The resource's origin from the `baseUrl` an entry gives: `https://{resource}.openai.azure.com`,
 * also accepted with the `/openai` or `/openai/v1` the Azure portal and the SDKs show after it.
 */
export function azureResourceUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/openai(?:\/v1)?$/, '')
}
