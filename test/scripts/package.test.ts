import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/spawn-runtime'

const folder = mkdtempSync(join(tmpdir(), 'package-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const packManifest = join(repoRoot, 'scripts/pack-manifest.mjs')
const checkPackage = join(repoRoot, 'scripts/check-package.mjs')

/** A copy of the repository's package.json in a folder of its own. */
function packageCopy(name: string): { dir: string; original: string } {
  const dir = join(folder, name)
  mkdirSync(dir)
  cpSync(join(repoRoot, 'package.json'), join(dir, 'package.json'))
  return { dir, original: readFileSync(join(dir, 'package.json'), 'utf8') }
}

describe('the published package.json (scripts/pack-manifest.mjs, prepack and postpack)', () => {
  it('leaves the scripts out, keeps everything else, and restores the file byte for byte', () => {
    const { dir, original } = packageCopy('strip')
    execFileSync(process.execPath, [packManifest, 'strip', dir])
    const published = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    const { scripts, ...rest } = JSON.parse(original)
    expect(scripts.prepare).toContain('build-console')
    expect(published).toEqual(rest)
    // A pack stopped before postpack: the next strip keeps the first saved copy.
    execFileSync(process.execPath, [packManifest, 'strip', dir])
    execFileSync(process.execPath, [packManifest, 'restore', dir])
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(original)
  })
})

describe('the package check (scripts/check-package.mjs, run by CI on the packed tarball)', () => {
  /** Packs a folder with npm, scripts off, and runs the check on the tarball. */
  function packAndCheck(dir: string) {
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], {
      cwd: dir,
      stdio: 'ignore',
    })
    const tarball = join(
      dir,
      `model-gateway-${JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version}.tgz`,
    )
    return spawnSync(process.execPath, [checkPackage, tarball], { encoding: 'utf8' })
  }

  function writeFiles(dir: string, files: Record<string, string>) {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true })
      writeFileSync(join(dir, name), text)
    }
  }

  const needed = [
    'index.js',
    'index.cjs',
    'index.d.ts',
    'index.d.cts',
    'extend.js',
    'extend.cjs',
    'extend.d.ts',
    'extend.d.cts',
    'node/index.js',
    'node/index.cjs',
    'node/index.d.ts',
    'node/cli.js',
    'postgres/index.js',
    'postgres/index.cjs',
    'postgres/index.d.ts',
    'redis/index.js',
    'redis/index.cjs',
    'redis/index.d.ts',
    'console/index.js',
    'console/index.cjs',
    'console/index.d.ts',
  ]

  it('passes a package of what users need, and prints its sizes', () => {
    const { dir } = packageCopy('good')
    execFileSync(process.execPath, [packManifest, 'strip', dir])
    writeFiles(dir, {
      ...Object.fromEntries(needed.map((file) => [`dist/${file}`, 'export {}\n'])),
      'README.md': '# model-gateway\n',
      'CHANGELOG.md': '# Changelog\n',
      LICENSE: 'MIT\n',
      'config.schema.json': '{}\n',
    })
    const result = packAndCheck(dir)
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^26 files, [\d.]+ kB packed, [\d.]+ kB unpacked\n/)
  })

  it('fails a package with source maps, scripts, a missing file or over its budget, naming each', () => {
    const { dir } = packageCopy('bad')
    writeFiles(dir, {
      ...Object.fromEntries(
        needed
          .filter((file) => file !== 'node/cli.js')
          .map((file) => [`dist/${file}`, 'export {}\n']),
      ),
      'dist/index.js.map': '{}',
      // Random bytes do not compress: base64 of 1.8 MB packs to about 1.8 MB.
      'dist/blob.js': randomBytes(1_800_000).toString('base64'),
      'README.md': '# model-gateway\n',
      'CHANGELOG.md': '# Changelog\n',
      LICENSE: 'MIT\n',
      'config.schema.json': '{}\n',
    })
    const result = packAndCheck(dir)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('package: missing: dist/node/cli.js')
    expect(result.stderr).toContain('package: source map: dist/index.js.map')
    expect(result.stderr).toMatch(/package: package.json keeps scripts \(.*prepare/)
    expect(result.stderr).toMatch(/package: packed \d+ B, over the budget of 1620000/)
  })
})
