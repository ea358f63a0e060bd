import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { ALLOWED, layerOf, SRC } from './layers.ts';

/** Types a service bag of the HTTP layer is declared with: the whole context, or the routes' narrow one. */
const SERVICE_BAGS = /\b(AppContext|RouteServices)\b/;

/**
 * Members of `AppContext` (src/context.ts) whose type comes from a layer `layer` may not use:
 * reaching `ctx.store` calls the store as surely as importing it does.
 */
export function forbiddenMembers(layer: string): Map<string, string> {
  const file = join(SRC, 'context.ts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const importedFrom = new Map<string, string>();
  const members = new Map<string, string>();
  const allowed = ALLOWED[layer] ?? [];
  source.forEachChild((node) => {
    // Packages (pino, …) are no layer of ours.
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text.startsWith('.')
    ) {
      const target = resolve(dirname(file), node.moduleSpecifier.text);
      const named = node.importClause?.namedBindings;
      if (named !== undefined && ts.isNamedImports(named))
        for (const el of named.elements) importedFrom.set(el.name.text, layerOf(target));
    }
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'AppContext') {
      for (const m of node.members) {
        if (!ts.isPropertySignature(m) || m.type === undefined || !ts.isIdentifier(m.name)) continue;
        const typeName = m.type.getText(source).match(/^[A-Za-z]+/)?.[0] ?? '';
        const from = importedFrom.get(typeName);
        if (from !== undefined && from !== layer && !allowed.includes(from)) members.set(m.name.text, from);
      }
    }
  });
  return members;
}

/**
 * Where a file of `layer` reaches, through a service bag, a member from a layer it may not use:
 * `ctx.store…`, `ctx['connect']`, `const { store } = ctx`.
 */
export function forbiddenReaches(fileName: string, text: string, forbidden: Map<string, string>): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const bags = new Set<string>();
  const found: string[] = [];
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const collect = (node: ts.Node): void => {
    if ((ts.isParameter(node) || ts.isVariableDeclaration(node)) && ts.isIdentifier(node.name))
      if (node.type !== undefined && SERVICE_BAGS.test(node.type.getText(source))) bags.add(node.name.text);
    node.forEachChild(collect);
  };
  const check = (node: ts.Node): void => {
    const report = (member: string) => {
      const layer = forbidden.get(member);
      if (layer !== undefined) found.push(`${fileName}:${at(node)} reaches ${member} (${layer})`);
    };
    const onBag = (e: ts.Expression) => ts.isIdentifier(e) && bags.has(e.text);
    if (ts.isPropertyAccessExpression(node) && onBag(node.expression)) report(node.name.text);
    if (
      ts.isElementAccessExpression(node) &&
      onBag(node.expression) &&
      ts.isStringLiteral(node.argumentExpression)
    )
      report(node.argumentExpression.text);
    if (ts.isVariableDeclaration(node) && node.initializer !== undefined && onBag(node.initializer)) {
      if (ts.isObjectBindingPattern(node.name))
        for (const el of node.name.elements) report((el.propertyName ?? el.name).getText(source));
    }
    node.forEachChild(check);
  };
  collect(source);
  check(source);
  return found;
}
