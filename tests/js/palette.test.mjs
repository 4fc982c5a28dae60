// palette.test.mjs: the light and dark colours are palette.js's THEME_COLORS. css/views.css writes them as custom
// properties, the light palette once and the dark one twice (the reader's prefers-color-scheme, and
// <arc-scope theme="dark">: no rule joins a media query and a selector); each of the three blocks must hold exactly
// the palette's colours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { THEME_COLORS } from '../../web/lib/views/palette.js';

const css = readFileSync(new URL('../../web/lib/css/views.css', import.meta.url), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');

// The colour properties of the first rule with this selector, after the text `after` (the media query).
function colours(selector, after = '') {
  const from = css.indexOf(after);
  const at = css.indexOf(`${selector} {`, from);
  assert.ok(from >= 0 && at >= 0, `views.css: no rule "${selector}"${after && ` after "${after}"`}`);
  const body = css.slice(at + selector.length + 2, css.indexOf('}', at));
  const props = Object.fromEntries([...body.matchAll(/--([\w-]+):\s*([^;]+);/g)].map(([, k, v]) => [k, v.trim()]));
  delete props.mono; // the font, not a colour
  return props;
}

test('views.css holds palette.js\'s light and dark colours, in each of its three blocks', () => {
  assert.deepEqual(colours(':root, :host, :host([theme="light"])'), THEME_COLORS.light);
  assert.deepEqual(colours(':root, :host', '@media (prefers-color-scheme: dark)'), THEME_COLORS.dark);
  assert.deepEqual(colours(':host([theme="dark"])'), THEME_COLORS.dark);
});
