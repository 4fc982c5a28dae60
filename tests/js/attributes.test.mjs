// attributes.test.mjs: <arc-scope>'s attributes are declared once (web/lib/element/arc-scope-attributes.js), and
// what is said of them elsewhere follows that declaration:
//   - the guide's table (docs/embedding.md), embed.html's and element.d.ts's accessors are what
//     scripts/attributes.mjs writes from it (names, doc lines, defaults, setter types);
//   - the .d.ts's value types (ArcScopeMode, ...) hold exactly the words the readers take;
//   - each constant default is a value its attribute accepts, written as the guide writes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { update } from '../../scripts/attributes.mjs';
import { ATTRIBUTES, ATTRIBUTE_NAMES, readAttribute, defaultDoc } from '../../web/lib/element/arc-scope-attributes.js';
import { LAYER_WORDS, HEAD_WORDS, ELEMENT_MODES, ABLATIONS, THEMES, LOADINGS, SINKS }
  from '../../web/lib/element/view-options.js';

test('the guide, embed.html and element.d.ts say of each attribute what its declaration says', () => {
  assert.deepEqual(update({ check: true }), [], 'run node scripts/attributes.mjs and commit what it writes');
});

test('the .d.ts value types hold the words the attributes take', () => {
  const file = new URL('../../web/lib/types/element.d.ts', import.meta.url);
  const sf = ts.createSourceFile('element.d.ts', readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const union = (name) => {
    const alias = sf.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
    assert.ok(alias, `type ${name} not declared`);
    const types = ts.isUnionTypeNode(alias.type) ? alias.type.types : [alias.type];
    return types.map((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : t.getText()))
      .sort();
  };
  const expected = { ArcScopeLayer: ['number', ...LAYER_WORDS], ArcScopeHead: ['number', ...HEAD_WORDS],
    ArcScopeMode: ELEMENT_MODES, ArcScopeAblationKind: ABLATIONS, ArcScopeTheme: THEMES, ArcScopeLoading: LOADINGS,
    ArcScopeSink: SINKS };
  for (const [name, words] of Object.entries(expected)) assert.deepEqual(union(name), [...words].sort(), name);
});

test('each attribute reads its words and its default, and refuses what is not valid as the element says', () => {
  assert.deepEqual(ATTRIBUTE_NAMES, ['text', 'model', 'src', 'layer', 'head', 'mode', 'answer', 'wrong', 'ablate',
    'topk', 'threshold', 'sink', 'theme', 'loading']);
  for (const [name, a] of Object.entries(ATTRIBUTES)) {
    assert.equal(typeof a.parse, 'function', name);
    assert.ok(a.doc && !a.doc.includes('\n'), `${name}: one doc line`);
    if (a.default !== null && typeof a.default !== 'function') {
      assert.equal(a.parse(String(a.default)), a.default, `${name}: its default is a value it takes`);
      assert.equal(a.defaultDoc, undefined, `${name}: a constant default is written as itself`);
      assert.equal(defaultDoc(name), `\`${a.default}\``);
    } else {
      assert.ok(a.defaultDoc, `${name}: a default that is not a constant is said in words`);
    }
  }
  const context = { layers: 4, heads: 4, base: 'https://example.com/post/' };
  assert.equal(readAttribute('layer', null, context), 3);
  assert.equal(readAttribute('head', null, context), 'all');
  assert.equal(readAttribute('layer', '2', context), 2);
  assert.equal(readAttribute('model', 'm.arcs', context), 'https://example.com/post/m.arcs');
  assert.throws(() => readAttribute('layer', '1.5', context),
    { message: 'layer "1.5" is not valid: use an integer from 0 to 3, "mean" or "max"' });
  assert.throws(() => readAttribute('layer', '-1'), { message: 'layer "-1" is not valid: use an integer from 0 up, ' +
    '"mean" or "max"' });
  assert.equal(readAttribute('layer', '9', {}), 9); // without the shape, any index
  assert.throws(() => readAttribute('mode', 'ablation', { modes: ['arcs', 'matrix'] }),
    { message: 'mode "ablation" is not valid: use "arcs" or "matrix"' });
  assert.equal(readAttribute('sink', null), 'auto');
  assert.throws(() => readAttribute('sink', '0'), { message: 'sink "0" is not valid: use "auto", "shown" or "hidden"' });
  assert.throws(() => readAttribute('theme', 'Dark'), { message: 'theme "Dark" is not valid: use "auto", "light" or "dark"' });
  assert.throws(() => readAttribute('model', '', context),
    { message: 'model "" is not valid: use the URL of an .arcs model file, or leave it out for the default model' });
});
