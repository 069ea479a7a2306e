import type { FieldDoc } from '../../internal/field-doc'
import { credentialsCallbackFieldDoc } from '../credentials/field-docs'

/**
 * The fields of a `vertex` entry of its own, by path in the entry; `id`, `baseUrl` (default: the
 * location's host), `headers`, `weight` and `maxConcurrent` are the HTTP kinds'.
 */
export const vertexFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  project: 'Vertex AI: the Google Cloud project id.',
  region: {
    text: 'Vertex AI: the location: `global` (host `aiplatform.googleapis.com`), the multi-regions `us` and `eu` (`aiplatform.{us|eu}.rep.googleapis.com`) or a region such as `us-east5` (`{region}-aiplatform.googleapis.com`).',
  },
  serviceAccount: {
    text: "Vertex AI: a service-account key: the key file's path (Node), or its JSON as an object or text; its `token_uri` is honoured. An `authorized_user` file works too.",
    defaultText: 'the credentials callback, else Application Default Credentials (Node)',
  },
  credentials: credentialsCallbackFieldDoc,
}
