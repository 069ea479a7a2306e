import { existsSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Where a file of the Node bridge or CLI sits in a checkout's `src/`: `node/transport/` and
 * `node/cli/` today, `node/` itself in checkouts from before the split — the benchmark compares
 * against older checkouts (`--base`), so it looks in all three.
 */
export function nodeSource(srcDir: string, name: string): string {
  for (const folder of ['node/transport', 'node/cli', 'node']) {
    const path = join(srcDir, folder, `${name}.ts`)
    if (existsSync(path)) return path
  }
  return join(srcDir, 'node', `${name}.ts`)
}
