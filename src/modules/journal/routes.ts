// Progress journal (spec 2.6, 4.7): weight, injections, injection plan, notes, side effects. Every
// route needs an active treatment plan (403 active_treatment_plan_required otherwise), except the
// side-effect reports: any treatment the patient was prescribed (403 prescription_required).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModuleOptions, ZodApp } from '../../http/plugin.ts';
import { bearerSecurity, currentUser } from '../../http/auth.ts';
import { DetailCodeSchema, DetailSchema, FieldErrorsSchema, UnauthorisedResponses } from '../../http/errors.ts';
import { orderBy, pageSchema, respondPage } from '../../http/pagination.ts';
import {
  GoalPut,
  GoalSchema,
  IdParams,
  InjectionCreate,
  InjectionPatch,
  InjectionSchema,
  InjectionWrittenSchema,
  NoteCreate,
  NoteWrittenSchema,
  NoteSchema,
  PlanPatch,
  PlanSchema,
  SideEffectCreate,
  SideEffectCreatedSchema,
  SideEffectSchema,
  WeightCreate,
  WeightPatch,
  WeightSchema,
  WeightWrittenSchema,
} from './schemas.ts';
import { ORDERINGS, type Rows, type Table } from './service.ts';
import * as journal from './service.ts';
import { fields, notFoundDetail, type OperationDoc } from '../../http/operation.ts';

const BASE = '/v1/users/journal';
const errors = { ...UnauthorisedResponses, 403: DetailCodeSchema };
const withBody = { 400: FieldErrorsSchema, ...errors };
const withId = { 404: DetailSchema, ...errors };
// The refusal of every journal route but the side-effect reports, and theirs (for the operation docs).
const journalPlan = { 403: [{ detail_code: ['active_treatment_plan_required'] }] } satisfies OperationDoc['errors'];
const prescribed = { 403: [{ detail_code: ['prescription_required'] }] } satisfies OperationDoc['errors'];

// Registers routes synchronously; the Promise is Fastify's plugin contract.
export default function journalModule(app: ZodApp, { deps }: ModuleOptions): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['journal'], security: bearerSecurity };
  const uid = (request: Parameters<typeof currentUser>[0]) => currentUser(request).id;

  // Collections with paginated lists.
  const listRoute = <T extends Table, O>(path: string, table: T, schema: z.ZodType, out: (row: Rows[T]) => O, summary: string, operation: OperationDoc) =>
    r.get(`${BASE}/${path}/`, { config: { operation }, schema: { ...common, summary, querystring: ORDERINGS[table].query, response: { 200: pageSchema(schema), ...errors } } }, async (request) => {
      const order = orderBy(request.query, ORDERINGS[table]);
      return respondPage(request, deps.config.PUBLIC_BASE_URL, ({ limit, offset }) => journal.list(deps, table, uid(request), limit, offset, out, order));
    });
  listRoute('weight-entries', 'weight_entries', WeightSchema, journal.weightOut, 'Weight entries, newest day first', { id: 'listWeightEntries', errors: journalPlan, descriptions: { 200: 'A page of weight entries' } });
  listRoute('injections', 'injections', InjectionSchema, journal.injectionOut, 'Injections, most recent first', { id: 'listInjections', errors: journalPlan, descriptions: { 200: 'A page of injections' } });
  listRoute('notes', 'journal_notes', NoteSchema, journal.noteOut, 'Notes, newest first', { id: 'listNotes', errors: journalPlan, descriptions: { 200: 'A page of notes' } });
  listRoute('side-effects', 'side_effect_reports', SideEffectSchema, journal.sideEffectOut, 'Side-effect reports, newest first', { id: 'listSideEffects', errors: prescribed, descriptions: { 200: 'A page of side-effect reports' } });
  for (const [path, table, noun, id] of [
    ['weight-entries', 'weight_entries', 'weight entry', 'deleteWeightEntry'],
    ['injections', 'injections', 'injection', 'deleteInjection'],
    ['notes', 'journal_notes', 'note', 'deleteNote'],
  ] as const) {
    r.delete(
      `${BASE}/${path}/:id/`,
      { config: { operation: { id, errors: { ...journalPlan, 404: [notFoundDetail] }, descriptions: { 204: 'Deleted' } } }, schema: { ...common, summary: `Delete a ${noun} (204)`, params: IdParams, response: { 204: z.null(), ...withId } } },
      async (request, reply) => {
        await journal.remove(deps, table, uid(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  }

  r.post(
    `${BASE}/weight-entries/`,
    {
      config: {
        idempotent: true,
        operation: {
          id: 'logWeight',
          errors: { ...journalPlan, 400: [fields] },
          descriptions: { 200: 'The day already had an entry: it was updated', 201: 'Logged' },
          requestExample: { logged_on: '2026-03-02', weight_kg: 92.4 },
        },
      },
      schema: {
        ...common,
        summary: 'Log the weight of a day (201); a second entry for the same day updates it (200). The note is read for red flags (docs/red-flags.md): `emergency` is the notice, else null',
        body: WeightCreate,
        response: { 200: WeightWrittenSchema, 201: WeightWrittenSchema, ...withBody },
      },
    },
    async (request, reply) => {
      const { created, entry, emergency } = await journal.createWeight(deps, uid(request), request.body);
      return reply.code(created ? 201 : 200).send({ ...entry, emergency });
    },
  );
  r.patch(
    `${BASE}/weight-entries/:id/`,
    { config: { operation: { id: 'updateWeightEntry', errors: { ...journalPlan, 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The updated entry' } } }, schema: { ...common, summary: 'Change a weight entry (omitted fields are kept; a new note is read for red flags)', params: IdParams, body: WeightPatch, response: { 200: WeightWrittenSchema, ...withBody, ...withId } } },
    async (request) => journal.patchWeight(deps, uid(request), request.params.id, request.body),
  );

  r.post(
    `${BASE}/injections/`,
    { config: { idempotent: true, operation: { id: 'recordInjection', errors: { ...journalPlan, 400: [fields] }, descriptions: { 201: 'Recorded' } } }, schema: { ...common, summary: 'Record an injection (201; every call a new entry). The note is read for red flags: `emergency` is the notice, else null', body: InjectionCreate, response: { 201: InjectionWrittenSchema, ...withBody } } },
    async (request, reply) => reply.code(201).send(await journal.createInjection(deps, uid(request), request.body)),
  );
  r.patch(
    `${BASE}/injections/:id/`,
    { config: { operation: { id: 'updateInjection', errors: { ...journalPlan, 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The updated injection' } } }, schema: { ...common, summary: 'Change an injection (a new note is read for red flags)', params: IdParams, body: InjectionPatch, response: { 200: InjectionWrittenSchema, ...withBody, ...withId } } },
    async (request) => journal.patchInjection(deps, uid(request), request.params.id, request.body),
  );

  r.get(
    `${BASE}/injection-plan/`,
    { config: { operation: { id: 'getInjectionPlan', errors: journalPlan, descriptions: { 200: 'The injection plan' } } }, schema: { ...common, summary: 'The injection plan (created with defaults on first read; never null)', response: { 200: PlanSchema, ...errors } } },
    async (request) => journal.getPlan(deps, uid(request)),
  );
  r.patch(
    `${BASE}/injection-plan/`,
    { config: { operation: { id: 'updateInjectionPlan', errors: { ...journalPlan, 400: [fields] }, descriptions: { 200: 'The updated plan' } } }, schema: { ...common, summary: 'Change the injection plan', body: PlanPatch, response: { 200: PlanSchema, ...withBody } } },
    async (request) => journal.patchPlan(deps, uid(request), request.body),
  );

  r.get(
    `${BASE}/goal/`,
    { config: { operation: { id: 'getJournalGoal', errors: journalPlan, descriptions: { 200: 'The goal weight (nulls when not set)' } } }, schema: { ...common, summary: 'The goal weight (nulls when never set or cleared)', response: { 200: GoalSchema, ...errors } } },
    async (request) => journal.getGoal(deps, uid(request)),
  );
  r.put(
    `${BASE}/goal/`,
    { config: { operation: { id: 'setJournalGoal', errors: { ...journalPlan, 400: [fields] }, descriptions: { 200: 'The goal weight as stored' }, requestExample: { goal_weight_kg: 78.5 } } }, schema: { ...common, summary: 'Set the goal weight (kg, the weight entries’ bounds), or clear it with null', body: GoalPut, response: { 200: GoalSchema, ...withBody } } },
    async (request) => journal.putGoal(deps, uid(request), request.body.goal_weight_kg),
  );

  r.post(
    `${BASE}/notes/`,
    { config: { idempotent: true, operation: { id: 'writeNote', errors: { ...journalPlan, 400: [fields] }, descriptions: { 201: 'Written' } } }, schema: { ...common, summary: 'Write a note (201). It is read for red flags: an emergency answers with `emergency` (the notice) and puts the note on the clinicians’ red-flag desk', body: NoteCreate, response: { 201: NoteWrittenSchema, ...withBody } } },
    async (request, reply) => reply.code(201).send(await journal.createNote(deps, uid(request), request.body.content)),
  );
  r.patch(
    `${BASE}/notes/:id/`,
    { config: { operation: { id: 'updateNote', errors: { ...journalPlan, 400: [fields], 404: [notFoundDetail] }, descriptions: { 200: 'The updated note' } } }, schema: { ...common, summary: 'Change a note (the new text is read for red flags)', params: IdParams, body: NoteCreate.partial(), response: { 200: NoteWrittenSchema, ...withBody, ...withId } } },
    async (request) => journal.patchNote(deps, uid(request), request.params.id, request.body.content),
  );

  r.post(
    `${BASE}/side-effects/`,
    {
      config: {
        idempotent: true,
        operation: { id: 'reportSideEffect', errors: { ...prescribed, 400: [fields] }, descriptions: { 201: 'Reported (with the emergency notice when severe or when its words raise a red flag)' } },
      },
      schema: {
        ...common,
        summary: 'Report a side effect (201) of any treatment the patient was prescribed, one-off medicines included (403 prescription_required otherwise). A severe one, or one whose words raise a red flag in any of the 7 languages (docs/red-flags.md), is flagged for the medical team and answered with the emergency notice (the country’s medical number first); dehydration at moderate severity on a GLP-1 is flagged without the notice',
        body: SideEffectCreate,
        response: { 201: SideEffectCreatedSchema, ...withBody },
      },
    },
    async (request, reply) => reply.code(201).send(await journal.reportSideEffect(deps, uid(request), request.body)),
  );
  return Promise.resolve();
}
