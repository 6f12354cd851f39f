import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A function longer than the bar: where it starts, what it is called, how many lines it spans. */
export interface LongFunction { file: string; line: number; name: string; lines: number }

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  // An anonymous function takes the name it is bound to: `const f = () => …`, `{ f: () => … }`, or a call's callee.
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))) return p.name.getText(sf);
  if (p && ts.isCallExpression(p)) return `${p.expression.getText(sf).slice(0, 60)}(…)`;
  return '(anonymous)';
}

/**
 * Every function (declaration, expression, arrow, method, accessor,
 * constructor) in `text` spanning more than `max` lines, from its first
 * token to its closing brace, nested functions included in their parent's count.
 */
export function longFunctionsIn(file: string, text: string, max: number): LongFunction[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) out.push({ file, line: start + 1, name: nameOf(node, sf), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Source files (not tests) under `dir`. */
export function* sourceFiles(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'generated' && e.name !== 'node_modules' && !e.name.startsWith('.')) yield* sourceFiles(p); }
    else if (/\.tsx?$/.test(e.name) && !/\.(test|d)\.tsx?$/.test(e.name)) yield p;
  }
}

/** Every function over `max` lines in the source files under `dir`, paths relative to `root`. */
export function longFunctions(root: string, dir: string, max: number): LongFunction[] {
  const out: LongFunction[] = [];
  for (const f of sourceFiles(dir)) out.push(...longFunctionsIn(path.relative(root, f).split(path.sep).join('/'), fs.readFileSync(f, 'utf8'), max));
  return out;
}

// `npx tsx lib/testing/function-length.ts [max]` lists them (Default: 120).
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const root = path.resolve(import.meta.dirname, '../..');
  for (const f of longFunctions(root, path.join(root, 'lib'), Number(process.argv[2] ?? 120))) console.log(`${f.file}:${f.line} ${f.name} ${f.lines} lines`);
}
