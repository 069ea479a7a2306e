import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The version of the installed model-gateway: read from the nearest `package.json` named
 * `model-gateway` above this module, wherever the build put it (`dist/node/cli.js`, a shared
 * chunk in `dist/`, or `src/node/cli/` when run from source).
 */
export function packageVersion(from: string = import.meta.url): string {
  let folder = dirname(fileURLToPath(from))
  for (;;) {
    const manifest = join(folder, 'package.json')
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: unknown
        version?: unknown
      }
      if (name === 'model-gateway' && typeof version === 'string') return version
    }
    const parent = dirname(folder)
    if (parent === folder) return 'unknown'
    folder = parent
  }
}
