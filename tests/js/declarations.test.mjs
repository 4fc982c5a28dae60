// The TypeScript declarations (web/lib/types/*.d.ts) against the JavaScript they describe, read with the TypeScript
// compiler API and never run (element.js needs a DOM):
//   - each module's exported values: the .js file's export statements and the .d.ts file's value declarations;
//   - the engine object (createEngine's `engine.x = ...` and engine/article.js's blocks), Model, the tokenizer object and EngineClient: their
//     public members in the JavaScript and in the declared interface or class, both ways;
//   - <arc-scope>: every observed attribute and every accessor of the class has a declared property, and every
//     declared member exists in the JavaScript;
//   - the declarations compile on their own (strict, lib dom + es2022).
// Differences are printed, then asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ATTRIBUTE_NAMES } from '../../web/lib/element/arc-scope-attributes.js';

const lib = new URL('../../web/lib/', import.meta.url);
const path = (file) => fileURLToPath(new URL(file, lib));

function parse(file) {
  const kind = file.endsWith('.d.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  return ts.createSourceFile(file, readFileSync(path(file), 'utf8'), ts.ScriptTarget.Latest, true, kind);
}

const hasModifier = (node, kind) => !!node.modifiers?.some((m) => m.kind === kind);
const exported = (node) => hasModifier(node, ts.SyntaxKind.ExportKeyword);
const isDefault = (node) => hasModifier(node, ts.SyntaxKind.DefaultKeyword);

function bindingNames(name, out = []) {
  if (ts.isIdentifier(name)) out.push(name.text);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindingNames(element.name, out);
  return out;
}

// Names a module exports as values (types, interfaces and `export type` left out), sorted.
function exportedValues(sf) {
  const typeNames = new Set();
  for (const s of sf.statements) {
    if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) typeNames.add(s.name.text);
  }
  const names = [];
  for (const s of sf.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s) || ts.isEnumDeclaration(s)) && exported(s)) {
      names.push(isDefault(s) ? 'default' : s.name.text);
    } else if (ts.isVariableStatement(s) && exported(s)) {
      for (const d of s.declarationList.declarations) names.push(...bindingNames(d.name));
    } else if (ts.isExportAssignment(s)) {
      names.push('default');
    } else if (ts.isExportDeclaration(s) && !s.isTypeOnly) {
      if (!s.exportClause) throw new Error(`${sf.fileName}: "export * from" cannot be listed here; name the exports`);
      if (ts.isNamespaceExport(s.exportClause)) { names.push(s.exportClause.name.text); continue; }
      for (const e of s.exportClause.elements) {
        const local = (e.propertyName ?? e.name).text;
        if (!e.isTypeOnly && !(s.moduleSpecifier === undefined && typeNames.has(local))) names.push(e.name.text);
      }
    } else if (ts.isModuleDeclaration(s) && exported(s)) {
      throw new Error(`${sf.fileName}: an exported namespace (${s.name.getText()}) is not compared here`);
    }
  }
  return names.sort();
}

const memberName = (m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : null);

// `target.name = ...` anywhere below node (target: 'this' or an identifier).
function assignedNames(node, target, out = new Set()) {
  const visit = (n) => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(n.left) && ts.isIdentifier(n.left.name)) {
      const object = n.left.expression;
      if (target === 'this' ? object.kind === ts.SyntaxKind.ThisKeyword : ts.isIdentifier(object) && object.text === target) {
        out.add(n.left.name.text);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

// A class's public members: methods, accessors, fields, and the constructor's `this.x = ...` (statics as
// 'static name'); #private ones left out.
function classMembers(cls) {
  const names = new Set();
  for (const m of cls.members) {
    if (ts.isConstructorDeclaration(m)) {
      if (m.body) for (const n of assignedNames(m.body, 'this')) names.add(n);
      continue;
    }
    if (ts.isIndexSignatureDeclaration(m) || ts.isClassStaticBlockDeclaration(m)) continue;
    if (m.name && ts.isPrivateIdentifier(m.name)) continue;
    if (hasModifier(m, ts.SyntaxKind.PrivateKeyword)) continue;
    const name = memberName(m);
    if (name) names.add(hasModifier(m, ts.SyntaxKind.StaticKeyword) ? `static ${name}` : name);
  }
  return names;
}

function accessors(cls) {
  return new Set(cls.members.filter((m) => (ts.isGetAccessor(m) || ts.isSetAccessor(m)) &&
    !ts.isPrivateIdentifier(m.name) && !hasModifier(m, ts.SyntaxKind.StaticKeyword)).map(memberName));
}

// An interface's or declared class's members (overloads once; constructor left out).
function declaredMembers(decl) {
  const names = new Set();
  for (const m of decl.members) {
    if (ts.isConstructorDeclaration(m) || ts.isConstructSignatureDeclaration(m) || ts.isCallSignatureDeclaration(m) ||
        ts.isIndexSignatureDeclaration(m)) continue;
    const name = memberName(m);
    if (name) names.add(hasModifier(m, ts.SyntaxKind.StaticKeyword) ? `static ${name}` : name);
  }
  return names;
}

function objectLiteralNames(obj) {
  return obj.properties.map((p) => memberName(p)).filter(Boolean);
}

function find(sf, test, what) {
  let found = null;
  const visit = (n) => { if (!found && test(n)) found = n; else if (!found) ts.forEachChild(n, visit); };
  visit(sf);
  assert.ok(found, `${sf.fileName}: ${what} not found`);
  return found;
}

const named = (kind, name) => (n) => kind(n) && n.name?.text === name;
const fnNamed = (name) => named(ts.isFunctionDeclaration, name);
const classNamed = (name) => named(ts.isClassDeclaration, name);
const interfaceNamed = (name) => named(ts.isInterfaceDeclaration, name);

// Prints and asserts that two name sets are equal.
function same(what, js, dts) {
  js = new Set(js);
  dts = new Set(dts);
  const missing = [...js].filter((n) => !dts.has(n)).sort();
  const extra = [...dts].filter((n) => !js.has(n)).sort();
  if (missing.length) console.log(`${what}: in the JavaScript, not declared: ${missing.join(', ')}`);
  if (extra.length) console.log(`${what}: declared, not in the JavaScript: ${extra.join(', ')}`);
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, `${what} differ (see above)`);
}

const modules = [['engine.js', 'types/engine.d.ts'], ['worker-client.js', 'types/worker-client.d.ts'],
  ['element.js', 'types/element.d.ts']];

// arcscope/react: the element's module and React's JSX types (read with @types/react, a devDependency).
const reactEntry = ['react.js', 'types/react.d.ts'];

for (const [js, dts] of [...modules, reactEntry]) {
  test(`${dts} declares exactly the values ${js} exports`, () => {
    const jsNames = exportedValues(parse(js));
    const dtsNames = exportedValues(parse(dts));
    console.log(`${js}: ${jsNames.join(', ')}`);
    same(`${js} exports`, jsNames, dtsNames);
  });
}

test("the Engine interface has createEngine's engine object's members, no more", () => {
  const create = find(parse('engine.js'), fnNamed('createEngine'), 'function createEngine');
  const initial = find(create.body, (n) => ts.isVariableDeclaration(n) && n.name.getText() === 'engine',
    'const engine = {...}');
  assert.ok(initial.initializer && ts.isObjectLiteralExpression(initial.initializer), 'engine starts as an object literal');
  // and the article's blocks, which it takes from engine/article.js (Object.assign(engine, articleBlocks(core)))
  const article = find(parse('engine/article.js'), fnNamed('articleBlocks'), 'function articleBlocks');
  const returned = article.body.statements.find((n) => ts.isReturnStatement(n));
  assert.ok(returned && ts.isObjectLiteralExpression(returned.expression), 'articleBlocks returns an object literal');
  const members = [...objectLiteralNames(initial.initializer), ...assignedNames(create.body, 'engine'),
    ...objectLiteralNames(returned.expression)];
  same('engine members', members, declaredMembers(find(parse('types/engine.d.ts'), interfaceNamed('Engine'), 'interface Engine')));
});

test("the Model interface has model.js's Model class's public members (methods, getters, fields), no more", () => {
  const cls = find(parse('engine/model.js'), classNamed('Model'), 'class Model');
  same('Model members', classMembers(cls), declaredMembers(find(parse('types/engine.d.ts'), interfaceNamed('Model'),
    'interface Model')));
});

// Each tokenizer is wrap(handle, own) (engine/tokenizer.js): the members both have, and those of its own object.
for (const [maker, name] of [['createTokenizer', 'Tokenizer'], ['wrapHfTokenizer', 'HfTokenizer']]) {
  test(`the ${name} interface has the members of the object ${maker} returns, no more`, () => {
    const source = parse('engine/tokenizer.js');
    const returned = (fn) => find(source, fnNamed(fn), `function ${fn}`).body.statements.find((s) => ts.isReturnStatement(s));
    const common = returned('wrap').expression, call = returned(maker).expression;
    assert.ok(ts.isObjectLiteralExpression(common), 'wrap returns {...}');
    assert.ok(ts.isCallExpression(call) && call.expression.getText() === 'wrap', `${maker} returns wrap(handle, {...})`);
    same(`${name} members`, [...objectLiteralNames(common), ...objectLiteralNames(call.arguments[1])],
      declaredMembers(find(parse('types/engine.d.ts'), interfaceNamed(name), `interface ${name}`)));
  });
}

test('the EngineClient declaration has the class\'s public members, no more', () => {
  same('EngineClient members', classMembers(find(parse('worker-client.js'), classNamed('EngineClient'), 'class EngineClient')),
    declaredMembers(find(parse('types/worker-client.d.ts'), classNamed('EngineClient'), 'class EngineClient')));
});

// A top-level `const NAME = ['a', 'b']` of sf, as strings.
function constStrings(sf, name) {
  const decl = sf.statements.filter(ts.isVariableStatement).flatMap((s) => [...s.declarationList.declarations])
    .find((d) => ts.isIdentifier(d.name) && d.name.text === name);
  assert.ok(decl, `${sf.fileName}: no top-level const ${name}`);
  assert.ok(decl.initializer && ts.isArrayLiteralExpression(decl.initializer), `${name} is not an array literal`);
  return decl.initializer.elements.map((e) => {
    assert.ok(ts.isStringLiteral(e), `${name} holds ${e.getText()}, not a string`);
    return e.text;
  });
}

// Names imported from modules that Node can load (the attributes' declaration needs no DOM).
const imported = { ATTRIBUTE_NAMES };

// Strings an expression stands for: a string, an array literal (spreads included), a top-level const array's
// name, one of the imported names above, or the variable of an enclosing for-of over one of these.
function strings(sf, expr) {
  if (ts.isStringLiteral(expr)) return [expr.text];
  if (ts.isArrayLiteralExpression(expr)) return expr.elements.flatMap((e) => strings(sf, e));
  if (ts.isSpreadElement(expr)) return strings(sf, expr.expression);
  if (ts.isIdentifier(expr)) {
    for (let n = expr.parent; n; n = n.parent) {
      if (ts.isForOfStatement(n) && ts.isVariableDeclarationList(n.initializer) &&
          n.initializer.declarations.some((d) => d.name.getText() === expr.text)) return strings(sf, n.expression);
    }
    return Object.hasOwn(imported, expr.text) ? imported[expr.text] : constStrings(sf, expr.text);
  }
  throw new Error(`cannot tell which names ${expr.getText()} stands for`);
}

// Properties a file defines with Object.defineProperty(Class.prototype, name, ...).
function prototypeProperties(sf, className) {
  const names = [];
  const visit = (n) => {
    if (ts.isCallExpression(n) && n.expression.getText() === 'Object.defineProperty' &&
        n.arguments[0]?.getText() === `${className}.prototype`) names.push(...strings(sf, n.arguments[1]));
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return names;
}

test('ArcScopeElement: each observed attribute and accessor is declared; each declared member exists', () => {
  const sf = parse('element.js');
  const cls = find(sf, classNamed('ArcScopeElement'), 'class ArcScopeElement');
  const observed = cls.members.find((m) => ts.isPropertyDeclaration(m) && memberName(m) === 'observedAttributes' &&
    hasModifier(m, ts.SyntaxKind.StaticKeyword));
  assert.ok(observed?.initializer, 'static observedAttributes = ... not found');
  const attributes = strings(sf, observed.initializer);
  const properties = [...accessors(cls), ...prototypeProperties(sf, 'ArcScopeElement')];
  const declared = declaredMembers(find(parse('types/element.d.ts'), classNamed('ArcScopeElement'), 'class ArcScopeElement'));
  const js = new Set([...classMembers(cls), ...properties]);
  console.log(`observed attributes: ${attributes.join(', ')}`);
  console.log(`properties (accessors): ${properties.join(', ') || '(none)'}`);
  const required = new Set([...attributes, ...properties, 'static observedAttributes']);
  const undeclared = [...required].filter((n) => !declared.has(n)).sort();
  const absent = [...declared].filter((n) => !js.has(n) && !required.has(n)).sort();
  const internal = [...js].filter((n) => !declared.has(n) && !required.has(n)).sort();
  const noProperty = attributes.filter((a) => !properties.includes(a));
  if (undeclared.length) console.log(`ArcScopeElement: in the JavaScript, not declared: ${undeclared.join(', ')}`);
  if (absent.length) console.log(`ArcScopeElement: declared, not in the JavaScript: ${absent.join(', ')}`);
  if (noProperty.length) console.log(`ArcScopeElement: attributes without a property: ${noProperty.join(', ')}`);
  if (internal.length) console.log(`ArcScopeElement: not declared (lifecycle callbacks): ${internal.join(', ')}`);
  assert.deepEqual({ undeclared, absent, noProperty }, { undeclared: [], absent: [], noProperty: [] },
    'ArcScopeElement differs (see above)');
});

// The diagnostics of type-checking files (strict, lib dom + es2022, no global @types), formatted.
function compileErrors(files) {
  const program = ts.createProgram(files, {
    strict: true, noEmit: true, skipLibCheck: false, types: [], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, {
    getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n',
  }));
}

test('the declarations compile on their own (strict, lib dom + es2022, no @types)', () => {
  const errors = compileErrors(modules.map(([, dts]) => path(dts)));
  for (const e of errors) console.log(e.trimEnd());
  assert.deepEqual(errors, []);
});

test("react.d.ts compiles against React's own declarations (@types/react), and only it reads them", () => {
  const errors = compileErrors([path(reactEntry[1])]);
  for (const e of errors) console.log(e.trimEnd());
  assert.deepEqual(errors, []);
  for (const [, dts] of modules) assert.doesNotMatch(readFileSync(path(dts), 'utf8'), /from 'react'/, dts);
});

// The modules' first paths, which self-hosted pages load by URL: each is one `export * from` its module and nothing
// else, so it exports what the module does (and importing arc-scope.js defines the element, as element.js does).
for (const [old, module] of [['arcscope.js', './engine.js'], ['arc-scope.js', './element.js']]) {
  test(`${old} re-exports ${module.slice(2)} whole`, () => {
    const statements = parse(old).statements;
    assert.equal(statements.length, 1, `${old} holds ${statements.length} statements`);
    const [only] = statements;
    assert.ok(ts.isExportDeclaration(only) && !only.exportClause && !only.isTypeOnly, `${old}: not an export *`);
    assert.equal(only.moduleSpecifier.text, module);
  });
}
