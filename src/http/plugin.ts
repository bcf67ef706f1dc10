// What a domain module is: a Fastify plugin typed by the zod provider, given the process's deps.
// Modules import these types rather than src/app.ts, so nothing depends on the app being built.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';

export interface ModuleOptions {
  deps: Deps;
}
export type ModulePlugin = FastifyPluginAsyncZod<ModuleOptions>;
/** The Fastify instance a module's routes are added to. */
export type ZodApp = Parameters<ModulePlugin>[0];
