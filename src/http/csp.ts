// Content-Security-Policy of the few HTML pages the API serves itself (issue 43; docs/hardening.md):
// the interactive API docs (/v1/docs/), the sandbox checkout page and the sandbox billing portal. Each
// policy starts from nothing (`default-src 'none'`) and allows only what its page loads: its own
// scripts and styles by origin ('self') or, for an inline <style>, by the SHA-256 hash of its text;
// no inline script, no inline event handler or style attribute, no plugin, no <base>, no framing.
import { createHash } from 'node:crypto';

/** The CSP source of an inline script or style: `'sha256-<base64 of its exact text>'`. */
export const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The origin of an absolute http(s) URL, or null (a relative or odd value names no other origin). */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** Joins directives (`[name, ...sources]`), dropping repeated sources. */
export function cspOf(directives: readonly (readonly string[])[]): string {
  return directives.map(([name, ...sources]) => [name, ...new Set(sources)].join(' ')).join('; ');
}

/**
 * The docs page (Swagger UI): its scripts and styles are files of its own origin (the index page has
 * no inline script or style); it fetches the two published documents and, with "Try it out", the API
 * at `apiOrigin`; the logo is a data: image.
 */
export function docsPagePolicy(apiOrigin: string | null): string {
  return cspOf([
    ["default-src", "'none'"],
    ["script-src", "'self'"],
    ["script-src-attr", "'none'"],
    ["style-src", "'self'"],
    ["img-src", "'self'", 'data:'],
    ["font-src", "'self'", 'data:'],
    ["connect-src", "'self'", ...(apiOrigin ? [apiOrigin] : [])],
    ["form-action", "'self'"],
    ["base-uri", "'none'"],
    ["object-src", "'none'"],
    ["frame-ancestors", "'none'"],
  ]);
}

/**
 * A server-rendered form page with one inline <style> (`css`, allowed by its hash) and no script:
 * its forms post to its own origin, and a form's answer may redirect to `returnOrigins` (browsers
 * hold such redirects to `form-action`).
 */
export function formPagePolicy(css: string, returnOrigins: readonly (string | null)[] = []): string {
  return cspOf([
    ["default-src", "'none'"],
    ["style-src", cspHash(css)],
    ["form-action", "'self'", ...returnOrigins.filter((o): o is string => o !== null)],
    ["base-uri", "'none'"],
    ["frame-ancestors", "'none'"],
  ]);
}
