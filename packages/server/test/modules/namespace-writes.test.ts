/**
 * The namespace view cache is correct only if every write of what a view shows drops the view. The
 * namespaces module makes that structural (namespaces.service.ts, `Namespaces`): the tables a view reads are
 * written only by repository functions that take a write handle, and only `Namespaces` makes handles, always
 * dropping the views they touched once the transaction is over. This reads the source and keeps it so: a
 * new write anywhere else, a write function without a handle, or a handle made anywhere else fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { SERVER_ROOT } from '../helpers/paths.js';

const SRC = path.join(SERVER_ROOT, 'src');
const MODULE = path.join(SRC, 'modules/namespaces');
const REPOSITORY = path.join(MODULE, 'namespaces.repository.ts');
const SERVICE = path.join(MODULE, 'namespaces.service.ts');
/** The function that reads a view's rows (namespaces.service.ts renders them). */
const VIEW_LOADER = 'findNamespaceWithUserNames';
const HANDLES = new Set(['NamespaceWrite', 'GameNamespacesWrite']);
const WRITE_METHODS = new Set(['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);
const READ_METHODS = new Set(['selectFrom', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full.endsWith(`${path.sep}migrations`) ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function visit(node: ts.Node, fn: (node: ts.Node) => void): void {
  fn(node);
  node.forEachChild((child) => visit(child, fn));
}

/** `db.selectFrom('namespaces as n')` → the method name and the table, when the first argument is a literal. */
function tableCall(node: ts.Node): { method: string; table: string } | undefined {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return undefined;
  const first = node.arguments[0];
  if (first === undefined || !ts.isStringLiteralLike(first)) return undefined;
  return { method: node.expression.name.text, table: first.text.split(/\s+as\s+/)[0]?.trim() ?? '' };
}

function enclosingFunction(node: ts.Node): ts.FunctionDeclaration | undefined {
  for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
    if (ts.isFunctionDeclaration(at)) return at;
  }
  return undefined;
}

/** The tables a function reads, following calls to other functions of the same file (the `live` helper). */
function tablesReadBy(source: ts.SourceFile, name: string, seen = new Set<string>()): Set<string> {
  const tables = new Set<string>();
  if (seen.has(name)) return tables;
  seen.add(name);
  const fns = new Map<string, ts.FunctionDeclaration>();
  source.forEachChild((n) => {
    if (ts.isFunctionDeclaration(n) && n.name !== undefined) fns.set(n.name.text, n);
  });
  const fn = fns.get(name);
  assert.ok(fn !== undefined, `${path.basename(source.fileName)} has a function ${name}`);
  visit(fn, (node) => {
    const call = tableCall(node);
    if (call !== undefined && READ_METHODS.has(call.method)) tables.add(call.table);
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && fns.has(node.expression.text)) {
      for (const t of tablesReadBy(source, node.expression.text, seen)) tables.add(t);
    }
  });
  return tables;
}

const files = sourceFiles(SRC).map(parse);
const repository = files.find((f) => f.fileName === REPOSITORY);
assert.ok(repository !== undefined);
const viewTables = tablesReadBy(repository, VIEW_LOADER);

describe('namespace view writes go through the namespaces module', () => {
  it('finds the tables a view shows', () => {
    assert.deepEqual([...viewTables].sort(), ['namespace_cdn_auth_users', 'namespaces']);
  });

  it('writes those tables only in namespaces.repository.ts, each write through a handle it takes', () => {
    const problems: string[] = [];
    let writes = 0;
    for (const source of files) {
      visit(source, (node) => {
        const call = tableCall(node);
        if (call === undefined || !WRITE_METHODS.has(call.method) || !viewTables.has(call.table)) return;
        writes += 1;
        const where = `${path.relative(SRC, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        if (source.fileName !== REPOSITORY) {
          problems.push(`${where} writes ${call.table} outside the namespaces repository`);
          return;
        }
        const fn = enclosingFunction(node);
        const param = fn?.parameters[0];
        const type = param?.type;
        const handle =
          type !== undefined && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)
            ? type.typeName.text
            : undefined;
        if (param === undefined || handle === undefined || !HANDLES.has(handle)) {
          problems.push(`${where}: ${fn?.name?.text ?? 'a function'} writes ${call.table} without a handle`);
          return;
        }
        // The write runs on the handle's own transaction: `<handle>.db.<method>(...)`.
        const chain = (node as ts.CallExpression).expression.getText(source).replace(/\s+/g, '');
        if (!chain.startsWith(`${param.name.getText(source)}.db.`)) {
          problems.push(`${where} writes ${call.table} through another handle than its ${handle}`);
        }
      });
    }
    assert.ok(writes > 0, 'found the module’s own writes');
    assert.deepEqual(problems, []);
  });

  it('writes them in no raw SQL', () => {
    const raw = new RegExp(
      `\\b(insert\\s+(or\\s+\\w+\\s+)?into|update|delete\\s+from|merge\\s+into|truncate)\\s+"?(${[...viewTables].join('|')})\\b`,
      'i',
    );
    const problems: string[] = [];
    for (const source of files) {
      visit(source, (node) => {
        if (ts.isTaggedTemplateExpression(node) && raw.test(node.template.getText(source))) {
          problems.push(`${path.relative(SRC, source.fileName)}: ${node.getText(source).slice(0, 80)}`);
        }
      });
    }
    assert.deepEqual(problems, []);
  });

  it('makes handles only in Namespaces, which drops the views they touch', () => {
    const made: string[] = [];
    for (const source of files) {
      visit(source, (node) => {
        if (!ts.isAsExpression(node) || !ts.isTypeReferenceNode(node.type)) return;
        const name = node.type.typeName.getText(source);
        if (!HANDLES.has(name)) return;
        let owner: ts.Node | undefined = node.parent;
        while (owner !== undefined && !ts.isClassDeclaration(owner)) owner = owner.parent;
        const cls = owner !== undefined && ts.isClassDeclaration(owner) ? owner.name?.text : undefined;
        made.push(`${path.relative(SRC, source.fileName)} ${cls ?? '(no class)'} ${name}`);
      });
    }
    const inModule = `${path.relative(SRC, SERVICE)} Namespaces`;
    assert.deepEqual(made.sort(), [`${inModule} GameNamespacesWrite`, `${inModule} NamespaceWrite`]);
  });
});
