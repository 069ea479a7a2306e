import type { FieldDoc } from '../../internal/field-doc'
import { credentialsCallbackFieldDoc } from '../credentials/field-docs'

/**
 * The fields of an `azure` entry that other kinds do not have, or that mean something else here,
 * by path in the entry.
 */
export const azureFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  apiVersion: {
    text: 'Azure OpenAI (`provider: "azure"`): an `api-version` such as `2024-10-21`: chat completions and embeddings then go to the deployment URLs (`/openai/deployments/{deployment}/…?api-version=`). Without it, the v1 API (`/openai/v1/…`, the deployment as `model`). Responses calls always use the v1 API.',
    defaultText: 'the v1 API',
  },
  entra: {
    text: 'Azure OpenAI: an Entra ID service principal (`tenantId`, `clientId`, `clientSecret`, `authorityHost`?) whose client-credentials token is sent as a bearer, cached until 5 minutes before it expires. Instead of `apiKey`.',
    defaultText: 'none',
  },
  'entra.tenantId': 'The directory (tenant) id of the app registration.',
  'entra.clientId': 'The application (client) id.',
  'entra.clientSecret': 'The client secret. Usually `"${NAME}"`.',
  'entra.authorityHost': {
    text: "Entra ID's host: another for a sovereign cloud (`https://login.microsoftonline.us`).",
    default: 'https://login.microsoftonline.com',
  },
  credentials: credentialsCallbackFieldDoc,
}
