import { codeOnly, type FieldDoc } from '../../internal/field-doc'

/**
 * The `credentials` field of the cloud kinds (`bedrock`, `vertex`, `azure`): one name for the
 * callback in code on every cloud entry, so one description, which each kind's field docs list
 * (the config reference keeps one row per path).
 */
export const credentialsCallbackFieldDoc: FieldDoc = codeOnly(
  '() => AWS credentials (bedrock), () => token (vertex), (scope) => token (azure)',
  "A callback in code that gives a cloud upstream's credentials, cached and asked for again before they expire. `bedrock`: `Promise<{ accessKeyId, secretAccessKey, sessionToken?, expiration? }>` (`expiration` a `Date` or epoch ms). `vertex`: an access token, bare (kept until Vertex refuses it) or `{ value, expiresAt }` (epoch ms); it wins over `serviceAccount`. `azure`: an Entra token for `scope`, bare (asked for per call) or `{ value, expiresAt }`; `getBearerTokenProvider` of `@azure/identity` fits.",
  'none',
)
