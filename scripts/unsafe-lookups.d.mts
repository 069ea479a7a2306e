import type ts from 'typescript'

/** The unsafe lookups in a set of files, as `path:line: message` strings. */
export function findUnsafeLookups(
  fileNames: string[],
  options: ts.CompilerOptions,
  host?: ts.CompilerHost,
): string[]
