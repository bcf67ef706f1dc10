// The connector pages' template renderer (templates/*.html): a small subset of Mustache with
// escaping by default and no way around it from the outside.
//
//   {{name}}                 the value, HTML-escaped (& < > " '), or a rendered template as it is
//   {{#name}}...{{/name}}    the block once per item of a list (each item's fields over the outer
//                            ones), once for an object (likewise), a true value or a non-empty string;
//                            not at all for false, undefined, '' or an empty list
//
// The one unescaped insertion is an Html value, and only this file makes one (a rendered template):
// a string cannot reach a page as markup, whatever it holds. A name with no value, a value that is
// not text where text goes, or a malformed tag is a programming error and throws, so a typo in a
// template fails the page's tests instead of printing nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Markup this renderer produced; the constructor is not exported. */
class RenderedHtml {
  constructor(readonly html: string) {}
}
export type Html = RenderedHtml;

type Text = string | Html;
export interface Data {
  readonly [name: string]: Text | boolean | undefined | Data | readonly Data[];
}

type Node = { kind: 'text'; text: string } | { kind: 'value'; name: string } | { kind: 'section'; name: string; body: Node[] };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function parse(source: string, name: string): Node[] {
  const root: Node[] = [];
  const open: { name: string; outer: Node[] }[] = [];
  let current = root;
  let last = 0;
  const text = (t: string) => {
    // A stray brace pair is a tag this parser did not understand ({{{raw}}}, {{ bad name }}...).
    if (t.includes('{{') || t.includes('}}')) throw new Error(`template ${name}: malformed tag near ${JSON.stringify(t.slice(0, 40))}`);
    if (t) current.push({ kind: 'text', text: t });
  };
  for (const m of source.matchAll(/\{\{([#/]?)([\w-]+)\}\}/g)) {
    text(source.slice(last, m.index));
    last = m.index + m[0].length;
    // A brace touching a tag ({{{raw}}}) is a tag this renderer does not have, not text around one.
    if (source[m.index - 1] === '{' || source[last] === '}') throw new Error(`template ${name}: malformed tag near ${JSON.stringify(source.slice(Math.max(0, m.index - 1), last + 1))}`);
    const [, sigil, tag] = m as unknown as [string, string, string];
    if (sigil === '#') {
      const node: Node = { kind: 'section', name: tag, body: [] };
      current.push(node);
      open.push({ name: tag, outer: current });
      current = node.body;
    } else if (sigil === '/') {
      const top = open.pop();
      if (top?.name !== tag) throw new Error(`template ${name}: {{/${tag}}} closes ${top ? `{{#${top.name}}}` : 'nothing'}`);
      current = top.outer;
    } else current.push({ kind: 'value', name: tag });
  }
  text(source.slice(last));
  if (open.length) throw new Error(`template ${name}: {{#${open[open.length - 1]!.name}}} is not closed`);
  return root;
}

function lookup(scopes: readonly Data[], name: string, template: string): Data[string] {
  for (let i = scopes.length - 1; i >= 0; i--) if (Object.hasOwn(scopes[i]!, name)) return scopes[i]![name];
  throw new Error(`template ${template}: no value for {{${name}}}`);
}

function renderNodes(nodes: readonly Node[], scopes: readonly Data[], template: string): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text;
    else if (node.kind === 'value') {
      const v = lookup(scopes, node.name, template);
      if (typeof v === 'string') out += escapeHtml(v);
      else if (v instanceof RenderedHtml) out += v.html;
      else throw new Error(`template ${template}: {{${node.name}}} is not text`);
    } else {
      const v = lookup(scopes, node.name, template);
      if (v instanceof RenderedHtml) throw new Error(`template ${template}: {{#${node.name}}} is markup, not a condition or list`);
      if (Array.isArray(v)) for (const item of v as readonly Data[]) out += renderNodes(node.body, [...scopes, item], template);
      else if (typeof v === 'object') out += renderNodes(node.body, [...scopes, v as Data], template);
      else if (v === true || (typeof v === 'string' && v !== '')) out += renderNodes(node.body, scopes, template);
    }
  }
  return out;
}

export interface Template {
  readonly name: string;
  render(data: Data): Html;
}

/** A template from its source text (parsed once, here: a malformed one fails at start-up). */
export function compileTemplate(name: string, source: string): Template {
  const nodes = parse(source, name);
  return { name, render: (data) => new RenderedHtml(renderNodes(nodes, [data], name)) };
}

/**
 * Reads `dir/file`. The file's final newline (which editors add) is not part of the template, so a
 * page ends where its markup ends.
 */
export function loadTemplate(dir: string, file: string): Template {
  return compileTemplate(file, readFileSync(join(dir, file), 'utf8').replace(/\r?\n$/, ''));
}
