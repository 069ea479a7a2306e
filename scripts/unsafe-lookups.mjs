// Finds code in which a string the gateway does not control could reach a member of
// Object.prototype, or make `String` throw. Uses the TypeScript checker, so it sees types, not
// spellings. Three patterns:
//   1. `table[key]` where `key` is any string (not a literal) and `table` is a plain object with a
//      string index signature (`Record<string, T>`): a key named `constructor`, `toString` or
//      `__proto__` reads Object.prototype, and a write with `__proto__` replaces the prototype.
//      Use a `Map`, `Object.hasOwn` before the read, or `Object.fromEntries` to build objects.
//   2. `key in object` with a key that is not a literal (or a literal naming an Object.prototype
//      member): `in` sees inherited members. Use `Object.hasOwn`.
//   3. `String(value)` or `${value}` where `value` may be an object (`unknown`, `any`, objects):
//      `String({"toString":1})` throws. Use `stringOf` from src/internal/json.ts.
// A line may opt out with a comment `lookup-safe: <reason>` on it or on the line above, for a key
// that provably comes from the object's own keys.
import ts from 'typescript'

const prototypeMembers = new Set(Object.getOwnPropertyNames(Object.prototype))

/**
 * The unsafe lookups in a set of files, as `path:line: message` strings.
 *
 * @param {string[]} fileNames
 * @param {ts.CompilerOptions} options
 * @param {ts.CompilerHost} [host]
 */
export function findUnsafeLookups(fileNames, options, host) {
  const program = ts.createProgram(fileNames, { ...options, noEmit: true }, host)
  const checker = program.getTypeChecker()
  const problems = []
  for (const file of program.getSourceFiles()) {
    if (!fileNames.includes(file.fileName)) continue
    const lines = file.text.split('\n')
    const report = (node, message) => {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const optOut = /lookup-safe:/
      if (optOut.test(lines[line] ?? '') || optOut.test(lines[line - 1] ?? '')) return
      problems.push(`${file.fileName}:${line + 1}: ${message}`)
    }
    const visit = (node) => {
      if (ts.isElementAccessExpression(node)) checkElementAccess(node, checker, report)
      else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.InKeyword)
        checkIn(node, checker, report)
      else if (ts.isCallExpression(node) && isStringCall(node) && node.arguments.length === 1)
        checkToString(node.arguments[0], checker, report, 'String(…)')
      // A tagged template's tag gets the values themselves (htm builds elements of them), not text.
      else if (ts.isTemplateSpan(node) && !ts.isTaggedTemplateExpression(node.parent.parent))
        checkToString(node.expression, checker, report, '`${…}`')
      ts.forEachChild(node, visit)
    }
    visit(file)
  }
  return problems
}

function checkElementAccess(node, checker, report) {
  const keyType = checker.getTypeAtLocation(node.argumentExpression)
  if (!isWideString(keyType)) return
  const objectType = checker.getApparentType(checker.getTypeAtLocation(node.expression))
  if (checker.isArrayLikeType(objectType)) return
  if (objectType.flags & ts.TypeFlags.StringLike) return
  const index = checker.getIndexInfoOfType(objectType, ts.IndexKind.String)
  if (index === undefined) return
  report(
    node,
    `\`${node.getText()}\` indexes a plain object with an arbitrary string (use a Map or Object.hasOwn)`,
  )
}

function checkIn(node, checker, report) {
  const key = node.left
  if (ts.isStringLiteralLike(key) && !prototypeMembers.has(key.text)) return
  if (ts.isPrivateIdentifier(key)) return
  if (checker.getTypeAtLocation(key).flags & ts.TypeFlags.ESSymbolLike) return
  report(node, `\`${node.getText()}\` sees inherited members (use Object.hasOwn)`)
}

function isStringCall(node) {
  return ts.isIdentifier(node.expression) && node.expression.text === 'String'
}

function checkToString(expression, checker, report, form) {
  const type = checker.getTypeAtLocation(expression)
  if (!mayBeObject(type)) return
  report(
    expression,
    `${form} of \`${expression.getText()}\`, which may be an object (use stringOf)`,
  )
}

function isWideString(type) {
  if (type.isUnion()) return type.types.some(isWideString)
  return (type.flags & ts.TypeFlags.String) !== 0
}

function mayBeObject(type) {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return true
  if (type.flags & ts.TypeFlags.Never) return false
  if (type.isUnion()) return type.types.some(mayBeObject)
  if (type.flags & ts.TypeFlags.Object) {
    // Error objects and dates have their own `toString`; plain data objects do not.
    const name = type.getSymbol()?.getName()
    return name !== 'Error' && name !== 'Date' && name !== 'URL' && name !== 'GatewayError'
  }
  return false
}
