// Progress journal (spec 2.6, 4.7): weight, injections, injection plan, notes, side effects. Every
// route needs an active treatment plan (403 active_treatment_plan_required otherwise).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, UnauthorisedResponses } from '../../http/errors.ts';
import { PageQuery, pageSchema, respondPage } from '../../http/pagination.ts';
import {
  IdParams,
  InjectionCreate,
  InjectionPatch,
  InjectionSchema,
  NoteCreate,
  NoteSchema,
  PlanPatch,
  PlanSchema,
  SideEffectCreate,
  SideEffectCreatedSchema,
  SideEffectSchema,
  WeightCreate,
  WeightPatch,
  WeightSchema,
} from './schemas.ts';
import type { Rows, Table } from './repository.ts';
import * as journal from './service.ts';

const BASE = '/v1/users/journal';
const errors = { ...UnauthorisedResponses, 403: DetailCodeSchema };
const withBody = { 400: FieldErrorsSchema, ...errors };
const withId = { 404: DetailSchema, ...errors };

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function journalModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['journal'], security: bearerSecurity };
  const uid = (request: Parameters<typeof currentUser>[0]) => currentUser(request).id;

  // Collections with paginated lists.
  const listRoute = <T extends Table, O>(path: string, table: T, schema: z.ZodType, out: (row: Rows[T]) => O, summary: string) =>
    r.get(`${BASE}/${path}/`, { schema: { ...common, summary, querystring: PageQuery, response: { 200: pageSchema(schema), ...errors } } }, async (request) =>
      respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => journal.list(deps, table, uid(request), limit, offset, out)),
    );
  listRoute('weight-entries', 'weight_entries', WeightSchema, journal.weightOut, 'Weight entries, newest day first');
  listRoute('injections', 'injections', InjectionSchema, journal.injectionOut, 'Injections, most recent first');
  listRoute('notes', 'journal_notes', NoteSchema, journal.noteOut, 'Notes, newest first');
  listRoute('side-effects', 'side_effect_reports', SideEffectSchema, journal.sideEffectOut, 'Side-effect reports, newest first');
  for (const [path, table, noun] of [
    ['weight-entries', 'weight_entries', 'weight entry'],
    ['injections', 'injections', 'injection'],
    ['notes', 'journal_notes', 'note'],
  ] as const) {
    r.delete(
      `${BASE}/${path}/:id/`,
      { schema: { ...common, summary: `Delete a ${noun} (204)`, params: IdParams, response: { 204: z.null(), ...withId } } },
      async (request, reply) => {
        await journal.remove(deps, table, uid(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  }

  r.post(
    `${BASE}/weight-entries/`,
    {
      config: { idempotent: true },
      schema: {
        ...common,
        summary: 'Log the weight of a day (201); a second entry for the same day updates it (200)',
        body: WeightCreate,
        response: { 200: WeightSchema, 201: WeightSchema, ...withBody },
      },
    },
    async (request, reply) => {
      const { created, entry } = await journal.createWeight(deps, uid(request), request.body);
      return reply.code(created ? 201 : 200).send(entry);
    },
  );
  r.patch(
    `${BASE}/weight-entries/:id/`,
    { schema: { ...common, summary: 'Change a weight entry (omitted fields are kept)', params: IdParams, body: WeightPatch, response: { 200: WeightSchema, ...withBody, ...withId } } },
    async (request) => journal.patchWeight(deps, uid(request), request.params.id, request.body),
  );

  r.post(
    `${BASE}/injections/`,
    { config: { idempotent: true }, schema: { ...common, summary: 'Record an injection (201; every call a new entry)', body: InjectionCreate, response: { 201: InjectionSchema, ...withBody } } },
    async (request, reply) => reply.code(201).send(await journal.createInjection(deps, uid(request), request.body)),
  );
  r.patch(
    `${BASE}/injections/:id/`,
    { schema: { ...common, summary: 'Change an injection', params: IdParams, body: InjectionPatch, response: { 200: InjectionSchema, ...withBody, ...withId } } },
    async (request) => journal.patchInjection(deps, uid(request), request.params.id, request.body),
  );

  r.get(
    `${BASE}/injection-plan/`,
    { schema: { ...common, summary: 'The injection plan (created with defaults on first read; never null)', response: { 200: PlanSchema, ...errors } } },
    async (request) => journal.getPlan(deps, uid(request)),
  );
  r.patch(
    `${BASE}/injection-plan/`,
    { schema: { ...common, summary: 'Change the injection plan', body: PlanPatch, response: { 200: PlanSchema, ...withBody } } },
    async (request) => journal.patchPlan(deps, uid(request), request.body),
  );

  r.post(
    `${BASE}/notes/`,
    { config: { idempotent: true }, schema: { ...common, summary: 'Write a note (201)', body: NoteCreate, response: { 201: NoteSchema, ...withBody } } },
    async (request, reply) => reply.code(201).send(await journal.createNote(deps, uid(request), request.body.content)),
  );
  r.patch(
    `${BASE}/notes/:id/`,
    { schema: { ...common, summary: 'Change a note', params: IdParams, body: NoteCreate.partial(), response: { 200: NoteSchema, ...withBody, ...withId } } },
    async (request) => journal.patchNote(deps, uid(request), request.params.id, request.body.content),
  );

  r.post(
    `${BASE}/side-effects/`,
    {
      config: { idempotent: true },
      schema: {
        ...common,
        summary: 'Report a side effect (201); a severe one, or one with emergency wording or a red flag (pancreatitis signs, priapism, sudden vision loss, fainting) in any of the 7 languages, is flagged for the medical team and answered with the emergency notice (the country’s medical number first)',
        body: SideEffectCreate,
        response: { 201: SideEffectCreatedSchema, ...withBody },
      },
    },
    async (request, reply) => reply.code(201).send(await journal.reportSideEffect(deps, uid(request), request.body)),
  );
  return Promise.resolve();
}
