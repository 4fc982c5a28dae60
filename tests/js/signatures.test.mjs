// signatures.test.mjs: the TypeScript declarations (web/lib/types/*.d.ts) against the JavaScript, signature by
// signature, read with the TypeScript compiler API and never run. For each exported function, each method of the engine
// object, Model, the tokenizer object and EngineClient, and each worker op that WorkerOps declares:
//   - the parameters, in order: their names (a destructured one is compared by its keys instead), which may be left
//     out (a default or a rest in the JavaScript, `?` or a rest in the declaration);
//   - an options object that the JavaScript destructures where it takes it: its keys, against the properties of the
//     declared type (interfaces, aliases, intersections and overloads resolved by the type checker), both ways.
// declarations.test.mjs checks the names of what exists; this checks how it is called. Differences are printed, then
// asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const lib = new URL('../../web/lib/', import.meta.url);
const path = (file) => fileURLToPath(new URL(file, lib));
const typesPath = (file) => path(`types/${file}`); // a declaration file, by its name
const parseJs = (file) => ts.createSourceFile(file, readFileSync(path(file), 'utf8'), ts.ScriptTarget.Latest, true,
  ts.ScriptKind.JS);

// The declarations, with a type checker to resolve option types.
const program = ts.createProgram(['engine.d.ts', 'worker-client.d.ts', 'element.d.ts'].map(typesPath), {
  strict: true, noEmit: true, types: [], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
});
const checker = program.getTypeChecker();
const dts = (file) => program.getSourceFile(typesPath(file));

const nameOf = (n) => (n.name && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name)) ? n.name.text : null);
const hasModifier = (n, kind) => !!n.modifiers?.some((m) => m.kind === kind);

function find(node, test, what) {
  let found = null;
  const visit = (n) => { if (!found && test(n)) found = n; else if (!found) ts.forEachChild(n, visit); };
  visit(node);
  assert.ok(found, `${what} not found`);
  return found;
}

// Whether a parameter is only ever passed on as it is (an argument of a call, a shorthand property): undefined then
// means what the callee makes of it, so the declaration may call it optional.
function passedOn(p) {
  if (!ts.isIdentifier(p.name) || !p.parent.body) return false;
  let uses = 0, other = 0;
  const visit = (n) => {
    if (ts.isIdentifier(n) && n.text === p.name.text && n !== p.name) {
      const up = n.parent;
      if (ts.isShorthandPropertyAssignment(up) || ((ts.isCallExpression(up) || ts.isNewExpression(up)) &&
          up.arguments?.includes(n))) uses++;
      else if (!(ts.isPropertyAccessExpression(up) && up.name === n) && !(ts.isPropertyAssignment(up) && up.name === n)) {
        other++;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(p.parent.body);
  return uses > 0 && other === 0;
}

// A JavaScript parameter: {name, optional, rest, keys (a destructured object's, else null), passedOn}.
function jsParam(p) {
  const keys = ts.isObjectBindingPattern(p.name)
    ? p.name.elements.filter((e) => !e.dotDotDotToken).map((e) => (e.propertyName ?? e.name).getText()) : null;
  return { name: keys ? null : p.name.getText(), optional: !!p.initializer || !!p.dotDotDotToken,
    rest: !!p.dotDotDotToken, keys, passedOn: !p.initializer && passedOn(p) };
}

// The function a JavaScript member stands for: a method, or a property / assignment whose value is a function.
const functionOf = (n) => (ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ? n : ts.isPropertyAssignment(n) ? functionOf(n.initializer) : null);

// A declared parameter, its options' keys from its type (the properties of an object type, null for others).
function dtsParam(p) {
  const rest = !!p.dotDotDotToken;
  let keys = null, requiredKeys = false;
  if (p.type && !rest) {
    const type = checker.getNonNullableType(checker.getTypeAtLocation(p));
    const object = (t) => (t.flags & ts.TypeFlags.Object) && !checker.isArrayLikeType(t) &&
      !t.getCallSignatures().length && !(t.symbol && ['Uint8Array', 'ArrayBuffer', 'URL', 'Float32Array', 'Int32Array',
        'AbortSignal'].includes(t.symbol.name));
    const parts = type.isUnion() ? type.types : [type];
    if (parts.every(object) || (type.isIntersection() && !type.isUnion())) {
      const properties = parts.flatMap((t) => checker.getPropertiesOfType(t));
      keys = [...new Set(properties.map((s) => s.name))];
      requiredKeys = properties.some((s) => !(s.flags & ts.SymbolFlags.Optional));
    }
  }
  return { name: ts.isIdentifier(p.name) ? p.name.text : null, optional: !!p.questionToken || !!p.initializer || rest,
    rest, keys, requiredKeys };
}

// Several declarations of one name (overloads): the longest parameter list, each parameter optional if any overload
// leaves it out, its keys the union of the overloads'.
function declaredParams(decls) {
  const lists = decls.map((d) => d.parameters.map(dtsParam));
  const n = Math.max(...lists.map((l) => l.length));
  return Array.from({ length: n }, (_, i) => {
    const at = lists.map((l) => l[i]);
    const first = at.find(Boolean);
    const keys = at.some((p) => p?.keys) ? [...new Set(at.flatMap((p) => p?.keys ?? []))] : null;
    return { ...first, optional: at.some((p) => !p || p.optional), keys };
  });
}

// Differences between one function's JavaScript and declared parameters, as lines.
function compare(what, js, declared) {
  const out = [];
  if (js.length !== declared.length) {
    out.push(`${what}: ${js.length} parameters in the JavaScript (${js.map((p) => p.name ?? '{...}').join(', ')}), ` +
      `${declared.length} declared (${declared.map((p) => p.name ?? '{...}').join(', ')})`);
  }
  for (let i = 0; i < Math.min(js.length, declared.length); i++) {
    const a = js[i], b = declared[i];
    const label = `${what} parameter ${i + 1} (${a.name ?? '{...}'})`;
    if (a.name !== null && b.name !== null && a.name !== b.name) out.push(`${label}: declared as ${b.name}`);
    // Accepted: a parameter passed on as it is, declared optional; an options object defaulting to {} (so that a
    // missing one is refused by naming the key it lacks), declared required because some of its keys are.
    const agreed = a.optional === b.optional || (a.passedOn && b.optional) || (a.optional && a.keys && b.requiredKeys);
    if (!agreed) out.push(`${label}: ${a.optional ? 'optional' : 'required'} in the JavaScript, ` +
      `${b.optional ? 'optional' : 'required'} declared`);
    if (a.rest !== b.rest) out.push(`${label}: a rest parameter in only one of them`);
    if (a.keys) {
      if (!b.keys) { out.push(`${label}: destructured in the JavaScript, declared without an object type`); continue; }
      const missing = a.keys.filter((k) => !b.keys.includes(k)), extra = b.keys.filter((k) => !a.keys.includes(k));
      if (missing.length) out.push(`${label}: option not declared: ${missing.join(', ')}`);
      if (extra.length) out.push(`${label}: declared option the JavaScript does not read: ${extra.join(', ')}`);
    }
  }
  return out;
}

// Overloads: the JavaScript agrees with one of them, else its differences from all of them together.
function compareOverloads(what, js, decls) {
  if (decls.some((d) => compare(what, js, declaredParams([d])).length === 0)) return [];
  return compare(what, js, declaredParams(decls));
}

// Compares members by name: js, [[name, function node]]; declared, the declaration's members (methods only).
function compareMembers(what, js, declaredIn) {
  const declared = new Map();
  for (const m of declaredIn.members) {
    if (!(ts.isMethodSignature(m) || ts.isMethodDeclaration(m) || ts.isFunctionDeclaration(m))) continue;
    const key = `${hasModifier(m, ts.SyntaxKind.StaticKeyword) ? 'static ' : ''}${nameOf(m)}`;
    declared.set(key, [...(declared.get(key) ?? []), m]);
  }
  const out = [];
  let compared = 0;
  for (const [name, fn] of js) {
    if (!declared.has(name)) continue; // which members exist is declarations.test.mjs's
    compared++;
    out.push(...compareOverloads(`${what}.${name}`, fn.parameters.map(jsParam), declared.get(name)));
  }
  return { out, compared };
}

function report(out, compared, what) {
  for (const line of out) console.log(line);
  console.log(`${what}: ${compared} signatures compared`);
  assert.ok(compared > 0, `${what}: nothing compared`);
  assert.deepEqual(out, [], `${what}: signatures differ (see above)`);
}

// A class's public methods, [name, node] ('static name' for statics).
const classMethods = (cls) => cls.members.filter((m) => ts.isMethodDeclaration(m) && !ts.isPrivateIdentifier(m.name))
  .map((m) => [`${hasModifier(m, ts.SyntaxKind.StaticKeyword) ? 'static ' : ''}${nameOf(m)}`, m]);

test('exported functions: the parameters of each, as declared', () => {
  const out = [];
  let compared = 0;
  for (const [js, d] of [['engine.js', 'engine.d.ts'], ['worker-client.js', 'worker-client.d.ts'],
    ['element.js', 'element.d.ts']]) {
    const sf = parseJs(js);
    const declared = dts(d).statements.filter(ts.isFunctionDeclaration);
    for (const s of sf.statements) {
      if (!ts.isFunctionDeclaration(s) || !hasModifier(s, ts.SyntaxKind.ExportKeyword)) continue;
      const decls = declared.filter((f) => f.name?.text === s.name.text);
      if (!decls.length) continue;
      compared++;
      out.push(...compareOverloads(`${js} ${s.name.text}`, s.parameters.map(jsParam), decls));
    }
  }
  report(out, compared, 'exported functions');
});

test("the engine object's methods, as the Engine interface declares them", () => {
  const create = find(parseJs('engine.js'), (n) => ts.isFunctionDeclaration(n) && n.name?.text === 'createEngine',
    'createEngine');
  const literal = find(create.body, (n) => ts.isVariableDeclaration(n) && n.name.getText() === 'engine', 'engine');
  const js = literal.initializer.properties.map((p) => [nameOf(p), functionOf(p)]).filter(([, f]) => f);
  const visit = (n) => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(n.left) && n.left.expression.getText() === 'engine') {
      const fn = functionOf(n.right);
      if (fn) js.push([n.left.name.text, fn]);
    }
    ts.forEachChild(n, visit);
  };
  visit(create.body);
  const iface = find(dts('engine.d.ts'), (n) => ts.isInterfaceDeclaration(n) && n.name.text === 'Engine', 'Engine');
  const { out, compared } = compareMembers('engine', js, iface);
  report(out, compared, 'engine');
});

test("Model's methods, as the Model interface declares them", () => {
  const cls = find(parseJs('engine/model.js'), (n) => ts.isClassDeclaration(n) && n.name?.text === 'Model',
    'class Model');
  const iface = find(dts('engine.d.ts'), (n) => ts.isInterfaceDeclaration(n) && n.name.text === 'Model', 'Model');
  const { out, compared } = compareMembers('Model', classMethods(cls), iface);
  report(out, compared, 'Model');
});

// Each tokenizer is wrap(handle, own) (engine/tokenizer.js): the methods both give, and those of its own object.
for (const [maker, name] of [['createTokenizer', 'Tokenizer'], ['wrapHfTokenizer', 'HfTokenizer']]) {
  test(`the ${name} object's methods, as the ${name} interface declares them`, () => {
    const source = parseJs('engine/tokenizer.js');
    const fn = (fnName) => find(source, (n) => ts.isFunctionDeclaration(n) && n.name?.text === fnName, fnName);
    const methods = (object) => object.properties.map((p) => [nameOf(p), functionOf(p)]).filter(([, f]) => f);
    const common = fn('wrap').body.statements.find(ts.isReturnStatement).expression;
    const call = fn(maker).body.statements.find(ts.isReturnStatement).expression;
    assert.equal(call.expression.getText(), 'wrap', `${maker} returns wrap(handle, {...})`);
    const js = [...methods(common), ...methods(call.arguments[1])];
    const iface = find(dts('engine.d.ts'), (n) => ts.isInterfaceDeclaration(n) && n.name.text === name, name);
    const { out, compared } = compareMembers(name, js, iface);
    report(out, compared, name);
  });
}

test("EngineClient's methods, as declared", () => {
  const cls = find(parseJs('worker-client.js'), (n) => ts.isClassDeclaration(n) && n.name?.text === 'EngineClient',
    'class EngineClient');
  const decl = find(dts('worker-client.d.ts'), (n) => ts.isClassDeclaration(n) && n.name?.text === 'EngineClient',
    'EngineClient');
  const { out, compared } = compareMembers('EngineClient', classMethods(cls), decl);
  report(out, compared, 'EngineClient');
});

test("each worker op's arguments, as WorkerOps declares them (the keys its args object is read by)", () => {
  const sf = parseJs('worker/ops.js');
  const opsDecl = find(sf, (n) => ts.isVariableDeclaration(n) && n.name.getText() === 'ops', 'const ops');
  const ops = find(dts('worker-client.d.ts'), (n) => ts.isInterfaceDeclaration(n) && n.name.text === 'WorkerOps',
    'WorkerOps');
  const out = [];
  let compared = 0;
  for (const p of opsDecl.initializer.properties) {
    const fn = functionOf(p), name = nameOf(p);
    const member = ops.members.find((m) => nameOf(m) === name);
    if (!fn || !member) continue;
    const args = checker.getTypeAtLocation(member).getProperty('args');
    const argsType = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(args, member));
    const parts = argsType.isUnion() ? argsType.types : [argsType];
    const declared = [...new Set(parts.flatMap((t) => checker.getPropertiesOfType(t).map((s) => s.name)))];
    const first = fn.parameters[0];
    if (!first || !ts.isObjectBindingPattern(first.name)) {
      if (declared.length) out.push(`op ${name}: declares args ${declared.join(', ')}, the JavaScript reads none`);
      compared++;
      continue;
    }
    compared++;
    const keys = jsParam(first).keys;
    const missing = keys.filter((k) => !declared.includes(k)), extra = declared.filter((k) => !keys.includes(k));
    if (missing.length) out.push(`op ${name}: reads args not declared: ${missing.join(', ')}`);
    if (extra.length) out.push(`op ${name}: declares args it does not read: ${extra.join(', ')}`);
  }
  report(out, compared, 'worker ops');
});
