// The connector pages' renderer (src/modules/mcp/template.ts) on its own: what docs/mcp.md promises
// of it (escaping with no way around it, sections, a mistake that throws instead of printing nothing).
// The pages themselves are tested over HTTP in test/mcp-oauth.test.ts.
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../src/modules/mcp/template.ts';

describe('connector page templates', () => {
  it('escapes every value, and inserts as markup only what the renderer rendered', () => {
    const inner = compileTemplate('inner', '<b>{{v}}</b>').render({ v: `<i>&"'` });
    expect(inner.html).toBe('<b>&lt;i&gt;&amp;&quot;&#39;</b>');
    const outer = compileTemplate('outer', '<p>{{body}}</p><p>{{text}}</p>').render({ body: inner, text: inner.html });
    // The rendered template goes in as it is; the same markup passed as a string is text.
    expect(outer.html).toBe('<p><b>&lt;i&gt;&amp;&quot;&#39;</b></p><p>&lt;b&gt;&amp;lt;i&amp;gt;&amp;amp;&amp;quot;&amp;#39;&lt;/b&gt;</p>');
  });

  it('repeats a section over a list, shows it for true, an object or a non-empty string, and hides it otherwise', () => {
    const t = compileTemplate('s', '[{{#xs}}({{x}}{{y}}){{/xs}}]');
    expect(t.render({ y: '!', xs: [{ x: 'a' }, { x: 'b', y: '?' }] }).html).toBe('[(a!)(b?)]');
    expect(t.render({ y: '!', xs: { x: 'o' } }).html).toBe('[(o!)]');
    expect(t.render({ y: '!', x: 't', xs: true }).html).toBe('[(t!)]');
    expect(t.render({ y: '!', x: 's', xs: 'yes' }).html).toBe('[(s!)]');
    for (const xs of [false, undefined, '', []]) expect(t.render({ y: '!', xs }).html).toBe('[]');
  });

  it('throws on a malformed tag, an unclosed or crossed section, a missing value and a value that is not text', () => {
    expect(() => compileTemplate('raw', '{{{v}}}')).toThrow(/malformed tag/);
    expect(() => compileTemplate('spaced', '{{ v }}')).toThrow(/malformed tag/);
    expect(() => compileTemplate('open', '{{#a}}x')).toThrow(/not closed/);
    expect(() => compileTemplate('crossed', '{{#a}}{{#b}}{{/a}}{{/b}}')).toThrow(/closes/);
    const t = compileTemplate('t', '{{v}}');
    expect(() => t.render({})).toThrow(/no value for \{\{v\}\}/);
    expect(() => t.render({ v: true })).toThrow(/not text/);
    expect(() => t.render({ v: undefined })).toThrow(/not text/);
  });
});
