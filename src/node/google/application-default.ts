import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { GatewayError } from '../../errors'
import type {
  CredentialSource,
  ExpiringCredential,
} from '../../upstream/credentials/credential-cache'
import {
  credentialFileTokenSource,
  readGoogleCredentialFile,
} from '../../upstream/google/service-account'
import { metadataServerToken } from './metadata-server'

/** Settings of Application Default Credentials; each defaults to the process's own. */
export type GoogleDefaultCredentialsOptions = {
  /** Where `GOOGLE_APPLICATION_CREDENTIALS`, `CLOUDSDK_CONFIG`, `GCE_METADATA_HOST`… are read. */
  env?: Readonly<Record<string, string | undefined>> | undefined
  /** The home directory, where gcloud keeps `.config/gcloud/`. */
  home?: string | undefined
  fetch?: typeof fetch | undefined
  now?: (() => number) | undefined
}

/**
 * Google's Application Default Credentials, as google-auth-library finds them, in order:
 * 1. the file `GOOGLE_APPLICATION_CREDENTIALS` names (a service-account key or an
 *    `authorized_user` file);
 * 2. gcloud's `application_default_credentials.json` (`gcloud auth application-default login`),
 *    in `$CLOUDSDK_CONFIG`, else `~/.config/gcloud/` (`%APPDATA%\gcloud\` on Windows);
 * 3. the metadata server (`GCE_METADATA_HOST`, else `GCE_METADATA_IP`, else 169.254.169.254),
 *    unless `METADATA_SERVER_DETECTION=none`.
 * The source is chosen at the first call and kept; the caller's credential cache keeps tokens.
 * A file that is named but unreadable or malformed is an error naming it, never quoting it.
 */
export function googleDefaultCredentials(
  options: GoogleDefaultCredentialsOptions = {},
): (scopes: readonly string[]) => Promise<ExpiringCredential<string>> {
  const env = options.env ?? process.env
  const now = options.now ?? Date.now
  const fetcher = options.fetch ?? ((input, init) => fetch(input, init))
  let fileSource: CredentialSource<string> | undefined
  let chosen = false
  const choose = (): CredentialSource<string> | undefined => {
    if (chosen) return fileSource
    const named = env['GOOGLE_APPLICATION_CREDENTIALS']
    const path = named !== undefined && named !== '' ? named : gcloudFile(env, options.home)
    const text = readIfPresent(path, named !== undefined && named !== '')
    if (text !== undefined) {
      const file = readGoogleCredentialFile(text)
      if (typeof file === 'string') {
        throw new GatewayError('upstream_error', `The Google credentials file ${path} ${file}.`)
      }
      fileSource = credentialFileTokenSource(file, { fetch: fetcher, now })
    }
    chosen = true
    return fileSource
  }
  return async (scopes) => {
    const source = choose()
    if (source !== undefined) return source()
    if (env['METADATA_SERVER_DETECTION'] === 'none') {
      throw new GatewayError(
        'upstream_error',
        'No Google credentials: GOOGLE_APPLICATION_CREDENTIALS is unset, gcloud application_default_credentials.json is absent, and METADATA_SERVER_DETECTION=none.',
      )
    }
    const host = env['GCE_METADATA_HOST'] || env['GCE_METADATA_IP'] || '169.254.169.254'
    return metadataServerToken({ fetch: fetcher, now, host }, scopes)
  }
}

/** gcloud's Application Default Credentials file. */
function gcloudFile(env: Readonly<Record<string, string | undefined>>, home?: string): string {
  const configured = env['CLOUDSDK_CONFIG']
  if (configured) return join(configured, 'application_default_credentials.json')
  if (process.platform === 'win32' && env['APPDATA']) {
    return join(env['APPDATA'], 'gcloud', 'application_default_credentials.json')
  }
  return join(home ?? homedir(), '.config', 'gcloud', 'application_default_credentials.json')
}

/** A file's text; `undefined` when it is absent and not `required`. */
function readIfPresent(path: string, required: boolean): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (!required && code === 'ENOENT') return undefined
    throw new GatewayError(
      'upstream_error',
      `The Google credentials file ${path} cannot be read (${typeof code === 'string' ? code : 'error'}).`,
    )
  }
}

/** Reads a service-account key file an entry names by path (`serviceAccount`). */
export function readGoogleKeyFile(path: string): string {
  return readFileSync(path, 'utf8')
}
