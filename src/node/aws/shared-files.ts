import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChainOptions } from './chain-options'

/** A profile's settings, by lower-case key. */
export type Profile = ReadonlyMap<string, string>

/**
 * The sections of an AWS shared file (`~/.aws/credentials`, `~/.aws/config`): `[name]` headers,
 * `key = value` lines, `#` and `;` comments. An indented line continues a sub-section (`s3 =`) and
 * is skipped: the gateway reads no nested setting. Keys are lower-cased; values trimmed.
 */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>()
  let current: Map<string, string> | undefined
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const header = /^\[([^\]]+)\]$/.exec(line)
    if (header !== null) {
      const name = header[1]!.trim().replace(/\s+/g, ' ')
      current = sections.get(name) ?? new Map()
      sections.set(name, current)
      continue
    }
    if (current === undefined || /^\s/.test(raw)) continue
    const equals = line.indexOf('=')
    if (equals <= 0) continue
    current.set(line.slice(0, equals).trim().toLowerCase(), line.slice(equals + 1).trim())
  }
  return sections
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`The AWS shared file ${path} could not be read.`)
  }
}

/** The two shared files' paths: `AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`, else `~/.aws/`. */
function paths(options: ChainOptions, home: string): { credentials: string; config: string } {
  const expand = (path: string) => (path.startsWith('~/') ? join(home, path.slice(2)) : path)
  return {
    credentials: expand(
      options.env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials'),
    ),
    config: expand(options.env.AWS_CONFIG_FILE || join(home, '.aws', 'config')),
  }
}

/**
 * Every profile of the shared files, by name: the config file's `[profile name]` (and `[default]`)
 * merged with the credentials file's `[name]`, whose values win, as AWS's SDKs merge them.
 */
export async function readProfiles(
  options: ChainOptions,
  home: string,
): Promise<Map<string, Profile>> {
  const where = paths(options, home)
  const profiles = new Map<string, Map<string, string>>()
  const config = await readIfPresent(where.config)
  for (const [name, values] of parseIni(config ?? '')) {
    const profile =
      name === 'default'
        ? 'default'
        : name.startsWith('profile ')
          ? name.slice(8).trim()
          : undefined
    if (profile === undefined) continue // [sso-session …], [services …]
    profiles.set(profile, new Map([...(profiles.get(profile) ?? []), ...values]))
  }
  const credentials = await readIfPresent(where.credentials)
  for (const [name, values] of parseIni(credentials ?? '')) {
    profiles.set(name, new Map([...(profiles.get(name) ?? []), ...values]))
  }
  return profiles
}
