// Serves the built web app (web/dist, see web/README.md) at `/`: its files as they are (hashed assets
// cached for a year, pre-compressed .gz/.br copies when the build made them) and index.html for any
// other page a browser navigates to, so the app's own router answers /consultations/{id},
// /reset-password?token=..., /r/CODE and the rest. The API and the operational paths are left alone:
// an unknown path under them stays the JSON 404, and so does any request that does not accept HTML.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm --prefix web run build` writes the app. */
export const WEB_DIST_DIR = fileURLToPath(new URL('../web/dist', import.meta.url));

/** Paths that belong to the service, never to the web app. */
const RESERVED = ['/v1/', '/v1', '/healthz', '/readyz', '/metrics', '/mcp', '/.well-known/', '/sandbox/', '/checkout/complete', '/checkout/cancelled'];

const isReserved = (path: string) => RESERVED.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`) || path.startsWith(`${p}?`));

/** Google Identity Services' documented origins (the button's script, its styles, its iframe). */
const GSI = { script: 'https://accounts.google.com/gsi/client', style: 'https://accounts.google.com/gsi/style', frame: 'https://accounts.google.com/gsi/' };

/**
 * The page's own policy: scripts and data from this origin only (the API may be on its own origin);
 * with Google sign-in configured, also Google Identity Services' script, styles and frame.
 */
function contentSecurityPolicy(apiOrigin: string | undefined, google: boolean): string {
  const connect = ["'self'", ...(apiOrigin ? [apiOrigin] : []), ...(google ? [GSI.frame] : [])].join(' ');
  return [
    "default-src 'self'",
    `script-src 'self'${google ? ` ${GSI.script}` : ''}`,
    `style-src 'self' 'unsafe-inline'${google ? ` ${GSI.style}` : ''}`,
    "img-src 'self' data: blob:",
    `connect-src ${connect}`,
    ...(google ? [`frame-src ${GSI.frame}`] : []),
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

export interface WebAppOptions {
  /**
   * The OAuth client ID of the "Sign in with Google" button; empty: no button. Public by design (it is
   * in every page that shows the button). Default: the first of GOOGLE_CLIENT_IDS, the IDs the
   * service accepts as the ID token's audience (POST /v1/users/google-login/).
   */
  googleClientId?: string;
  /**
   * The brand this server accepts (`BRAND_SLUG`): the app sends it as `X-Brand-Slug`, so one build
   * serves every deployment whatever its brand. Default `demo`, like the service's own default.
   */
  brandSlug?: string;
}

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * index.html with the public settings the app reads at start (meta tags: no inline script under the
 * CSP): the brand it must send and, when Google sign-in is on, the button's client ID.
 */
function withSettings(html: string, settings: { brandSlug: string; googleClientId: string }): string {
  const metas = [`<meta name="brand-slug" content="${attr(settings.brandSlug)}" />`];
  if (settings.googleClientId) metas.push(`<meta name="google-signin-client-id" content="${attr(settings.googleClientId)}" />`);
  const meta = metas.join('\n    ');
  return html.includes('</head>') ? html.replace('</head>', `  ${meta}\n  </head>`) : `${meta}${html}`;
}

/**
 * Registers the web app when `root` holds a build (index.html); does nothing otherwise, so the API
 * runs without it (tests, a server that serves only the API).
 */
export async function registerWebApp(app: FastifyInstance, root: string = WEB_DIST_DIR, options: WebAppOptions = {}): Promise<boolean> {
  const dir = resolve(root);
  if (!existsSync(join(dir, 'index.html'))) return false;
  const googleClientId = (options.googleClientId ?? (process.env.GOOGLE_CLIENT_IDS ?? '').split(',')[0] ?? '').trim();
  const csp = contentSecurityPolicy(undefined, Boolean(googleClientId));
  // Read once: the page is the same for every request until the next build (a restart serves a new one).
  const indexHtml = withSettings(readFileSync(join(dir, 'index.html'), 'utf8'), { brandSlug: options.brandSlug ?? 'demo', googleClientId });

  // No route of its own (every route must declare who may call it, src/http/access.ts): the app
  // answers in an onRequest hook for the requests no route matched (the 404 handler's).
  // @fastify/static is loaded only when there is a web app to serve (start-up time).
  const { default: fastifyStatic } = await import('@fastify/static');
  await app.register(fastifyStatic, { root: dir, serve: false, preCompressed: true, cacheControl: false });

  const sendIndex = (reply: FastifyReply) => {
    reply.header('cache-control', 'no-cache');
    reply.header('content-security-policy', csp);
    reply.header('x-frame-options', 'DENY');
    // Google's button opens a popup that posts the credential back to this page.
    if (googleClientId) reply.header('cross-origin-opener-policy', 'same-origin-allow-popups');
    return reply.type('text/html; charset=utf-8').send(indexHtml);
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404 || (request.method !== 'GET' && request.method !== 'HEAD')) return;
    let path: string;
    try {
      path = decodeURIComponent(request.url.split('?')[0] ?? '/');
    } catch {
      return;
    }
    if (isReserved(path)) return;
    // A file of the build (no traversal: the resolved path must stay under the build folder).
    const file = resolve(dir, `.${path}`);
    if (path !== '/' && file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile()) {
      const relative = file.slice(dir.length + 1);
      reply.header('cache-control', relative.startsWith(`assets${sep}`) ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
      return reply.sendFile(relative, dir);
    }
    // Any other page: the app's router decides. Only for browsers (an HTML navigation).
    const accept = String(request.headers.accept ?? '');
    if (path !== '/' && !accept.includes('text/html')) return;
    if (path !== '/' && /\.[a-z0-9]{1,8}$/i.test(path)) return; // a missing asset is a 404
    return sendIndex(reply);
  });
  return true;
}
