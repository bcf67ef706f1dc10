// The connector's tools: patient-scoped reads and four narrow writes, each calling the owning
// module's service. Every tool has an input and an output schema and answers with structured
// content plus a short text; free text that the emergency detector flags puts the emergency notice
// (the patient's country's number) first. Every call is recorded (no content) by the caller.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import type { EmergencyNotice } from '../../lib/emergency.ts';
import { isLocale } from '../../lib/locales.ts';
import { countAccessForPatient, pageAccessForPatient } from '../audit/index.ts';
import { countPrescriptions, listOrders, pagePrescriptions, toPrescription } from '../fulfilment/index.ts';
import { countPayments, pagePayments, paymentOrder } from '../payments/index.ts';
import { countForUser, pageForUser, serialiseConsultations } from '../consultations/index.ts';
import * as journal from '../journal/index.ts';
import * as messages from '../messages/index.ts';
import { getProfile } from '../profile/index.ts';
import { patientSummary, summarySections } from '../interop/index.ts';
import {
  currentVersion,
  getProgress,
  listCategories,
  localisedSteps,
  patchProgress,
  prescribingFor,
  redFlags,
  renewalRuleSet,
  submitQuestionnaire,
  type Locale,
} from '../questionnaires/index.ts';
import { screenFreeText } from '../redflags/index.ts';
import * as subs from '../subscriptions/index.ts';
import { verificationStatus } from '../verification/index.ts';
import type { McpAuth, Scope } from './oauth.ts';
import { registerExtras } from './resources.ts';
import { ELICITATION_TIMEOUT_MS, confirmStep, type Confirmation, type Elicit } from './confirmation.ts';
import { grantsOfAccount } from './repository.ts';
import * as s from './schemas.ts';
import { iso } from '../../lib/iso.ts';
import { appLinks } from '../../mail/links.ts';

export const SERVER_INFO = { name: 'patient-treatment-service', version: '1.0.0' };

export interface ToolResult {
  data: Record<string, unknown>;
  text: string;
  emergency?: EmergencyNotice | null;
}

/** A tool as written: its run() receives the arguments typed by its own input schema. */
interface ToolDef<I extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: I;
  output: z.ZodObject;
  readOnly: boolean;
  /** MCP annotations beyond readOnly (defaults: not destructive, idempotent when read-only, closed world). */
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
  /** The owning service reads the tool's free text for red flags itself; otherwise every string input is screened here. */
  screensItself?: boolean;
  run: (ctx: ToolContext, args: z.infer<I>) => Promise<ToolResult>;
}

/** A tool as registered: the SDK hands over arguments it validated against `input`. */
export interface ToolSpec extends Omit<ToolDef<z.ZodObject>, 'run'> {
  run: (ctx: ToolContext, args: unknown) => Promise<ToolResult>;
}

/** Erases a tool's argument type for the list; the arguments are parsed with the tool's own schema, so the type run() sees is the one it gets. */
function tool<I extends z.ZodObject>(def: ToolDef<I>): ToolSpec {
  return { ...def, run: (ctx, args) => def.run(ctx, def.input.parse(args ?? {})) };
}

export interface ToolContext {
  deps: Deps;
  auth: McpAuth;
  /** Asks the patient through the client (MCP elicitation), when the client declared it. */
  elicit?: Elicit | undefined;
}

const locale = (ctx: ToolContext): Locale => (isLocale(ctx.auth.locale) ? ctx.auth.locale : 'en');
const paging = (a: { limit?: number; offset?: number }) => ({ limit: a.limit ?? 20, offset: a.offset ?? 0 });

/**
 * Free-text inputs the owning service does not read itself (an injection's dose and medication): the
 * one detector reads them too, and a red flag goes on the desk as a connector input (docs/red-flags.md).
 */
async function screenInputs(ctx: ToolContext, ...texts: (string | undefined)[]) {
  const s = await screenFreeText(ctx.deps.db, { userId: ctx.auth.userId, source: 'connector', sourceId: null, texts, about: 'note' });
  return s.emergency;
}

/** A message as the messages service answers the patient (a sent one carries more fields). */
type PatientMessage = Awaited<ReturnType<typeof messages.readAsPatient>>[number];
const messageOut = (m: PatientMessage) => ({ id: m.id, sender_type: m.sender_type, content: m.content, has_file: m.file !== null, is_read: m.is_read, created_at: m.created_at });

/** The verification state the connector may see: statuses and dates, never an image or a document. */
async function verificationSummary(deps: Deps, userId: string) {
  const v = await verificationStatus(deps, userId);
  return {
    identity_status: v.identity.status,
    weight_status: v.weight.status,
    weight_due_at: v.weight.due_at,
    missing_by_category: Object.fromEntries(v.requirements.filter((r) => r.missing.length).map((r) => [r.category, r.missing])),
  };
}

export const TOOLS: ToolSpec[] = [
  tool({
    name: 'get_profile_summary',
    title: 'Profile summary',
    description: 'The patient’s name, contact email, date of birth, country, locale, time zone, which questionnaires they completed, and the state of their identity and weight verification (status only).',
    scope: 'patient:read',
    input: s.EmptyIn,
    output: s.ProfileOut,
    readOnly: true,
    async run({ deps, auth }) {
      const p = await getProfile(deps, auth.userId);
      const data = {
        id: p.id,
        email: p.email,
        first_name: p.first_name,
        last_name: p.last_name,
        date_of_birth: p.date_of_birth,
        gender: p.gender ?? null,
        country_of_residence: p.country_of_residence,
        city: p.city,
        timezone: p.timezone ?? null,
        locale: p.locale,
        forms_completed: p.forms_completed as Record<string, boolean>,
        verification: await verificationSummary(deps, auth.userId),
      };
      return { data, text: `Profile of ${[p.first_name, p.last_name].filter(Boolean).join(' ') || p.email}; identity ${data.verification.identity_status}, weight ${data.verification.weight_status}.` };
    },
  }),
  tool({
    name: 'list_consultations',
    title: 'Consultations',
    description: 'The patient’s consultations with their status (pending_review, approved, rejected, ...), newest first.',
    scope: 'patient:read',
    input: s.PageInput,
    output: s.ConsultationsOut,
    readOnly: true,
    async run({ deps, auth }, args) {
      const { limit, offset } = paging(args);
      const [count, rows] = await Promise.all([countForUser(deps.db, auth.userId), pageForUser(deps.db, auth.userId, limit, offset)]);
      const full = await serialiseConsultations(deps.db, deps, rows);
      const results = full.map((c) => ({
        id: c.id,
        status: c.status,
        origin: c.origin,
        category: c.category,
        plan: c.plan,
        treatment_id: c.treatment_id,
        dosage: c.dosage,
        supply_days: c.supply_days,
        decision_reason: c.decision_reason,
        doctor: c.doctor ? { first_name: c.doctor.first_name, last_name: c.doctor.last_name } : null,
        prescription_ids: c.prescriptions.map((p) => p.id),
        created_at: c.created_at,
        decided_at: c.decided_at,
        refund: refundOf(c.payments),
      }));
      // The outcome as the patient should read it: "rejected, refunded in full (29.00 EUR)", never only a status.
      const said = (c: (typeof results)[number]) =>
        `${c.category}: ${c.status}${c.refund ? `, refunded ${c.refund.full ? 'in full' : 'in part'} (${(c.refund.refunded_cents / 100).toFixed(2)} ${c.refund.currency})` : ''}`;
      return { data: { count, results }, text: `${count} consultation(s); ${results.map(said).join('; ') || 'none'}.` };
    },
  }),
  tool({
    name: 'list_prescriptions_and_orders',
    title: 'Prescriptions and orders',
    description: 'Prescriptions issued by the patient’s doctors and the pharmacy orders with their shipping status, newest first.',
    scope: 'patient:read',
    input: s.PageInput,
    output: s.PrescriptionsOrdersOut,
    readOnly: true,
    async run({ deps, auth }, args) {
      const { limit, offset } = paging(args);
      const base = deps.config.PUBLIC_BASE_URL;
      const [count, rows, orders] = await Promise.all([
        countPrescriptions(deps.db, auth.userId),
        pagePrescriptions(deps.db, auth.userId, limit, offset),
        listOrders(deps.db, auth.userId),
      ]);
      const prescriptions = rows.map((row) => {
        const p = toPrescription(row, base);
        return {
          id: p.id,
          consultation_id: p.consultation_id,
          category: p.category,
          treatment_name: p.treatment_name,
          dosage: p.dosage,
          instructions: p.instructions,
          supply_days: p.supply_days,
          issued_at: p.issued_at,
          valid_until: p.valid_until,
          doctor: { first_name: p.doctor.first_name, last_name: p.doctor.last_name },
        };
      });
      const orderList = orders.map((o) => ({
        id: o.id,
        status: o.status,
        consultation_id: o.consultation_id,
        prescription_id: o.prescription_id,
        items: o.items.map((i) => ({ name: i.name, dosage: i.dosage, quantity: i.quantity, supply_days: i.supply_days })),
        carrier: o.carrier,
        tracking_number: o.tracking_number,
        tracking_url: o.tracking_url,
        shipped_at: o.shipped_at,
        delivered_at: o.delivered_at,
        created_at: o.created_at,
      }));
      return { data: { prescriptions: { count, results: prescriptions }, orders: orderList }, text: `${count} prescription(s), ${orderList.length} order(s).` };
    },
  }),
  tool({
    name: 'list_payments',
    title: 'Payments',
    description: 'The patient’s payments and refunds (amounts in euro cents), newest first. Invoices are not included.',
    scope: 'patient:read',
    input: s.PageInput,
    output: s.PaymentsOut,
    readOnly: true,
    async run({ deps, auth }, args) {
      const { limit, offset } = paging(args);
      const [count, rows] = await Promise.all([countPayments(deps.db, auth.userId), pagePayments(deps.db, auth.userId, paymentOrder(undefined), limit, offset)]);
      const results = rows.map((p) => ({
        id: p.id,
        consultation_id: p.consultation_id,
        subscription_id: p.subscription_id,
        description: p.description,
        billing_reason: p.billing_reason,
        amount_cents: p.amount_cents,
        refunded_amount_cents: p.refunded_amount_cents,
        net_amount_cents: p.amount_cents - p.refunded_amount_cents,
        currency: p.currency,
        status: p.status,
        captured_at: iso(p.captured_at),
        created_at: iso(p.created_at)!,
      }));
      return { data: { count, results }, text: `${count} payment(s).` };
    },
  }),
  tool({
    name: 'get_subscriptions',
    title: 'Subscriptions and renewal options',
    description:
      'The patient’s treatment subscriptions and, for each subscribed category (or the given one), what can be done next: confirm a pending renewal, order early, re-order, or why not.',
    scope: 'patient:read',
    input: s.SubscriptionsIn,
    output: s.SubscriptionsOut,
    readOnly: true,
    async run(ctx, args) {
      const { deps, auth } = ctx;
      const list = await subs.listSubscriptions(deps, auth.userId, 100, 0);
      const categories = args.category ? [String(args.category)] : [...new Set(list.results.map((x) => x.category))];
      const renewal_options = [];
      for (const category of categories) {
        const o = await subs.renewalOptions(deps, auth.userId, category, locale(ctx));
        renewal_options.push({
          category: o.category,
          mode: o.mode,
          blocked_code: o.blocked_code,
          pending_consultation_id: o.pending_consultation_id,
          current: o.current ? { treatment_id: o.current.treatment_id, dosage: o.current.dosage } : null,
          next_dosage: o.ladder ? o.ladder.next : null,
          alternatives: o.alternatives,
          price: o.price ? { amount_cents: o.price.amount_cents, currency: o.price.currency, plan: o.price.plan } : null,
        });
      }
      const results = list.results.map((x) => ({
        id: x.id,
        status: x.status,
        category: x.category,
        treatment_id: x.treatment_id,
        dosage: x.dosage,
        price_cents: x.price_cents,
        currency: x.currency,
        cycle_days: x.cycle_days,
        current_period_end: x.current_period_end,
        cancel_at_period_end: x.cancel_at_period_end,
        early_order_locked_until: x.early_order_locked_until,
      }));
      return {
        data: { count: list.count, results, renewal_options },
        text: `${list.count} subscription(s)${results.length ? `: ${results.map((x) => `${x.category} ${x.treatment_id} ${x.dosage} (${x.status})`).join('; ')}` : ''}; renewal options: ${renewal_options.map((o) => `${o.category}: ${o.mode}`).join(', ') || 'none'}.`,
      };
    },
  }),
  tool({
    name: 'get_messages',
    title: 'Messages with the medical team',
    description: 'The conversation between the patient and the medical team, oldest first (attachments are only flagged). Reading marks the team’s messages read, as the app does.',
    scope: 'patient:read',
    input: s.EmptyIn,
    output: s.MessagesOut,
    // Not read-only: it marks the team's messages read (calling it again changes nothing more).
    readOnly: false,
    idempotent: true,
    async run({ deps, auth }) {
      const [conv] = await messages.listForPatient(deps, auth.userId);
      // Every patient has one conversation (an empty one is answered without a stored row).
      if (!conv) throw new Error('the patient has no conversation');
      const list = await messages.readAsPatient(deps, auth.userId, conv.id);
      return {
        data: { conversation_id: conv.id, unread_count: conv.unread_count, messages: list.map(messageOut) },
        text: `${list.length} message(s) in the conversation with the medical team.`,
      };
    },
  }),
  tool({
    name: 'get_journal',
    title: 'Progress journal',
    description: 'The patient’s weights, injections, notes and injection plan (available while a treatment plan is active), newest first.',
    scope: 'patient:read',
    input: s.JournalIn,
    output: s.JournalOut,
    readOnly: true,
    async run({ deps, auth }, args) {
      const limit = args.limit ?? 20;
      const weights = await journal.list(deps, 'weight_entries', auth.userId, limit, 0, journal.weightOut);
      const injections = await journal.list(deps, 'injections', auth.userId, limit, 0, journal.injectionOut);
      const notes = await journal.list(deps, 'journal_notes', auth.userId, limit, 0, journal.noteOut);
      const plan = await journal.getPlan(deps, auth.userId);
      return {
        data: {
          weights: { count: weights.count, results: weights.results.map((w) => ({ id: w.id, weight_kg: w.weight_kg, logged_on: w.logged_on, note: w.note })) },
          injections: {
            count: injections.count,
            results: injections.results.map((i) => ({ id: i.id, medication: i.medication, dose: i.dose, injected_at: i.injected_at, injection_site: i.injection_site, note: i.note })),
          },
          notes: { count: notes.count, results: notes.results.map((n) => ({ id: n.id, content: n.content, created_at: n.created_at })) },
          plan: { medication: plan.medication, anchor_weekday: plan.anchor_weekday, preferred_time: plan.preferred_time, starts_on: plan.starts_on, active: plan.active },
          next_injection_on: nextInjectionOn(plan, injections.results[0]?.injected_at ?? null, deps.clock.now()),
        },
        text: `${weights.count} weight(s), ${injections.count} injection(s), ${notes.count} note(s).`,
      };
    },
  }),
  tool({
    name: 'list_questionnaires',
    title: 'Questionnaire catalogue',
    description: 'The treatment categories the service offers, with their treatments and dosages, in the patient’s language.',
    scope: 'patient:read',
    input: s.EmptyIn,
    output: s.CatalogueOut,
    readOnly: true,
    run(ctx) {
      const l = locale(ctx);
      const categories = listCategories().map((c) => ({
        slug: c.slug,
        title: c.title[l],
        description: c.description[l],
        default_plan: c.default_plan,
        treatments: c.treatments.map((t) => ({ treatment_id: t.treatment_id, name: t.name, dosages: t.dosages })),
      }));
      return Promise.resolve({ data: { locale: l, categories }, text: `${categories.length} categories: ${categories.map((c) => c.slug).join(', ')}.` });
    },
  }),
  tool({
    name: 'log_weight',
    title: 'Log a weight',
    description: 'Records the patient’s weight for a day in the progress journal (one entry per day; a second one for the same day replaces it).',
    scope: 'journal:write',
    input: s.LogWeightIn,
    output: s.LogWeightOut,
    readOnly: false,
    // A second entry for the same day replaces the first: an overwrite, hence destructive.
    destructive: true,
    idempotent: true,
    screensItself: true,
    async run(ctx, args) {
      const r = await journal.createWeight(ctx.deps, ctx.auth.userId, { weight_kg: args.weight_kg, logged_on: args.logged_on, note: args.note });
      const e = r.entry;
      return {
        emergency: r.emergency,
        data: { created: r.created, entry: { id: e.id, weight_kg: e.weight_kg, logged_on: e.logged_on, note: e.note } },
        text: `Weight ${e.weight_kg} kg ${r.created ? 'logged' : 'updated'} for ${e.logged_on}.`,
      };
    },
  }),
  tool({
    name: 'log_injection',
    title: 'Log an injection',
    description: 'Records an injection (dose, time with UTC offset, optional site and note) in the progress journal.',
    scope: 'journal:write',
    input: s.LogInjectionIn,
    output: s.LogInjectionOut,
    readOnly: false,
    screensItself: true,
    async run(ctx, args) {
      if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(args.injected_at) || Number.isNaN(Date.parse(args.injected_at))) {
        throw new ApiError(400, { injected_at: ['Enter a date and time with its UTC offset, e.g. 2026-11-20T08:00:00+01:00.'] });
      }
      const input: Record<string, unknown> = { dose: args.dose, injected_at: args.injected_at };
      if (args.medication !== undefined) input.medication = args.medication;
      if (args.injection_site !== undefined) input.injection_site = args.injection_site;
      if (args.note !== undefined) input.note = args.note;
      const i = await journal.createInjection(ctx.deps, ctx.auth.userId, input);
      return {
        emergency: i.emergency ?? (await screenInputs(ctx, args.dose, args.medication)),
        data: { entry: { id: i.id, medication: i.medication, dose: i.dose, injected_at: i.injected_at, injection_site: i.injection_site, note: i.note } },
        text: `Injection of ${i.dose} logged at ${i.injected_at}.`,
      };
    },
  }),
  tool({
    name: 'add_journal_note',
    title: 'Add a journal note',
    description: 'Adds a free-text note to the progress journal. Notes are read for red flags: one that raises a red flag is put on the medical team’s red-flag desk and answered with the emergency notice. To ask the team anything else, use send_message.',
    scope: 'journal:write',
    input: s.AddNoteIn,
    output: s.AddNoteOut,
    readOnly: false,
    screensItself: true,
    async run(ctx, args) {
      const n = await journal.createNote(ctx.deps, ctx.auth.userId, args.content);
      return { emergency: n.emergency, data: { note: { id: n.id, content: n.content, created_at: n.created_at } }, text: 'Note added to the journal.' };
    },
  }),
  tool({
    name: 'send_message',
    title: 'Send a message to the medical team',
    description: 'Sends a text message from the patient to their medical team (not an emergency service: in an emergency call the local emergency number).',
    scope: 'messages:write',
    input: s.SendMessageIn,
    output: s.SendMessageOut,
    readOnly: false,
    // The message reaches people outside the system (the medical team).
    openWorld: true,
    screensItself: true,
    async run(ctx, args) {
      const [conv] = await messages.listForPatient(ctx.deps, ctx.auth.userId);
      // Every patient has one conversation (an empty one is answered without a stored row).
      if (!conv) throw new Error('the patient has no conversation');
      const sent = await messages.sendAsPatient(ctx.deps, ctx.auth.userId, conv.id, args.content);
      return {
        emergency: sent.emergency,
        data: { conversation_id: sent.id, message: sent.last_message ? messageOut(sent.last_message) : null },
        text: 'Message sent to the medical team.',
      };
    },
  }),
  tool({
    name: 'get_weights',
    title: 'Past weights',
    description: 'The patient’s logged weights, newest first; readable with or without an active treatment plan.',
    scope: 'patient:read',
    input: s.PageInput,
    output: s.WeightsOut,
    readOnly: true,
    async run({ deps, auth }, args) {
      const { limit, offset } = paging(args);
      const w = await journal.pastWeights(deps, auth.userId, limit, offset);
      return { data: { count: w.count, results: w.results.map((x) => ({ id: x.id, weight_kg: x.weight_kg, logged_on: x.logged_on, note: x.note })) }, text: `${w.count} weight(s).` };
    },
  }),
  tool({
    name: 'get_document_links',
    title: 'Invoice and prescription downloads',
    description:
      'Where the patient downloads their invoices and prescriptions (PDF): the app page to open signed in, and the API address (it needs the patient’s own app session, not this connector’s token). Newest first.',
    scope: 'patient:read',
    input: s.PageInput,
    output: s.DocumentLinksOut,
    readOnly: true,
    async run({ deps, auth }, args) {
      const { limit, offset } = paging(args);
      const base = deps.config.PUBLIC_BASE_URL;
      const [payments, prescriptions] = await Promise.all([
        pagePayments(deps.db, auth.userId, paymentOrder(undefined), limit, offset),
        pagePrescriptions(deps.db, auth.userId, limit, offset),
      ]);
      const invoices = payments
        .filter((p) => p.status !== 'pending' && p.status !== 'failed')
        .map((p) => ({ payment_id: p.id, description: p.description, api_url: `${base}/v1/users/payments/${p.id}/invoice/`, page_url: appLinks.payments(deps.config) }));
      const rx = prescriptions.map((row) => {
        const p = toPrescription(row, base);
        return { prescription_id: p.id, treatment_name: p.treatment_name, api_url: p.pdf_url, page_url: appLinks.prescriptions(deps.config) };
      });
      return {
        data: { note: 'Open the page signed in to download; the connector does not hand out the files.', invoices, prescriptions: rx },
        text: `${invoices.length} invoice(s) and ${rx.length} prescription(s) to download from ${appLinks.payments(deps.config)} and ${appLinks.prescriptions(deps.config)}.`,
      };
    },
  }),
  tool({
    name: 'get_privacy_record',
    title: 'Who read my record, and my connected assistants',
    description:
      'Which staff member (doctor, pharmacist, back office) read or changed the patient’s record and when (newest first), the assistants the patient connected (live and disconnected), and the page where they manage consents, download all their data or delete their account (those are done there, signed in, not through the connector).',
    scope: 'patient:read',
    input: s.PageInput,
    output: s.PrivacyOut,
    readOnly: true,
    async run({ deps, auth }, args) {
      const { limit, offset } = paging(args);
      const [count, rows, grants] = await Promise.all([
        countAccessForPatient(deps.db, auth.userId),
        pageAccessForPatient(deps.db, auth.userId, limit, offset),
        grantsOfAccount(deps.db, auth.userId),
      ]);
      const page = appLinks.account(deps.config);
      const data = {
        note: 'Consents, the full data export and account erasure are on the account page, signed in.',
        access_log: {
          count,
          results: rows.map((r) => ({ at: new Date(r.at).toISOString(), actor_role: r.actor_role, actor_name: r.actor_name, action: r.action, resource_type: r.resource_type, resource_id: r.resource_id })),
        },
        connected_assistants: grants.map((g) => ({ client_name: g.client_name, scopes: g.scopes.split(' ').filter(Boolean), connected_at: new Date(g.created_at).toISOString(), revoked_at: g.revoked_at ? new Date(g.revoked_at).toISOString() : null })),
        page_url: page,
      };
      return { data, text: `${count} access-log entr${count === 1 ? 'y' : 'ies'}; ${grants.filter((g) => !g.revoked_at).length} connected assistant(s). Manage consents, export or erasure at ${page}.` };
    },
  }),
  tool({
    name: 'get_health_summary',
    title: 'My health summary',
    description:
      'The patient’s health summary as text: the same content as the FHIR patient summary (International Patient Summary) of the data export: medicines prescribed with their dosage, allergies and conditions the patient reported in questionnaires, body weight, height and BMI, and the consultations.',
    scope: 'patient:read',
    input: s.EmptyIn,
    output: s.HealthSummaryOut,
    readOnly: true,
    async run({ deps, auth }) {
      const bundle = await patientSummary(deps, auth.userId);
      const { title, sections, text } = summarySections(bundle);
      const page = appLinks.account(deps.config);
      const data = {
        generated_at: bundle.timestamp ?? deps.clock.now().toISOString(),
        title,
        sections,
        text,
        note: `The same summary as a FHIR document (application/fhir+json) is in the data export, signed in at ${page}.`,
      };
      return { data, text };
    },
  }),
  tool({
    name: 'report_side_effect',
    title: 'Report a side effect',
    description:
      'Reports a side effect of a treatment the patient was prescribed. A severe one, or one whose words raise a red flag, is flagged for the medical team and answered with the emergency notice.',
    scope: 'journal:write',
    input: s.SideEffectIn,
    output: s.SideEffectOut,
    readOnly: false,
    openWorld: true,
    screensItself: true,
    async run(ctx, args) {
      const r = await journal.reportSideEffect(ctx.deps, ctx.auth.userId, { symptom: args.symptom, severity: args.severity, started_on: args.started_on ?? null, note: args.note });
      return {
        emergency: r.emergency,
        data: { report: { id: r.id, symptom: r.symptom, severity: r.severity, started_on: r.started_on, flagged: r.flagged } },
        text: r.flagged ? 'Side effect reported and flagged for the medical team.' : 'Side effect reported in the journal.',
      };
    },
  }),

  tool({
    name: 'get_questionnaire',
    title: 'A questionnaire and its saved draft',
    description:
      'The questions of a category’s current questionnaire (steps, types, options, bounds, in the patient’s language) and the patient’s saved draft answers. Answer with save_questionnaire_draft, then submit with submit_questionnaire.',
    scope: 'patient:read',
    input: s.QuestionnaireIn,
    output: s.QuestionnaireOut,
    readOnly: true,
    async run(ctx, args) {
      const l = locale(ctx);
      const p = await getProgress(ctx.deps, ctx.auth.userId, args.category, l);
      const steps = localisedSteps(currentVersion(args.category)?.steps ?? [], l);
      return {
        data: { category: args.category, locale: l, steps, draft: { id: p.progress.id, answers: p.progress.data, updated_at: p.progress.updated_at } },
        text: `${steps.reduce((n, st) => n + st.questions.length, 0)} question(s) in ${steps.length} step(s); ${p.progress.data.length} answer(s) saved.`,
      };
    },
  }),
  tool({
    name: 'save_questionnaire_draft',
    title: 'Save questionnaire answers (draft)',
    description:
      'Saves the patient’s answers as the questionnaire draft (the whole answer set: answers left out are erased). Nothing is submitted. An answer that raises a red flag is answered with the emergency notice and put on the medical team’s red-flag desk.',
    scope: 'treatment:write',
    input: s.SaveDraftIn,
    output: s.SaveDraftOut,
    readOnly: false,
    destructive: true,
    idempotent: true,
    openWorld: true,
    // The questionnaire service reads the text answers itself; the engine's red flags are filed below.
    screensItself: true,
    async run(ctx, args) {
      const p = await patchProgress(ctx.deps, ctx.auth.userId, args.category, args.data, locale(ctx));
      const emergency = p.emergency ? await fileRedFlag(ctx, p.progress.id, p.emergency.codes) : null;
      return {
        emergency,
        data: { draft: { id: p.progress.id, answers: p.progress.data, updated_at: p.progress.updated_at } },
        text: `Draft saved with ${p.progress.data.length} answer(s); nothing was submitted.`,
      };
    },
  }),
  tool({
    name: 'submit_questionnaire',
    title: 'Submit a questionnaire (after the patient confirms)',
    description:
      'Submits the saved questionnaire draft for the eligibility check and a doctor’s review, only after the patient confirms: through the client’s confirmation dialog (elicitation), or in two steps (the first call answers with a summary and a confirmation_token; show the summary to the patient and, when they agree, call again with the same category and confirm = the token).',
    scope: 'treatment:write',
    input: s.SubmitQuestionnaireIn,
    output: s.SubmitQuestionnaireOut,
    readOnly: false,
    openWorld: true,
    screensItself: true,
    async run(ctx, args) {
      const { deps, auth } = ctx;
      const l = locale(ctx);
      const p = await getProgress(deps, auth.userId, args.category, l);
      if (!p.progress.data.length) throw new ApiError(400, { detail: 'The draft has no answers yet: save them with save_questionnaire_draft first. Nothing was submitted.' });
      const answers = p.progress.data.map((a) => `${a.question_key} = ${JSON.stringify(a.values ?? a.value ?? null)}`);
      const summary = `Submit the ${args.category} questionnaire with ${answers.length} answer(s) for the eligibility check and a doctor’s review: ${answers.join('; ')}.`;
      // The token confirms this draft: a draft saved again after the summary needs a new confirmation.
      const c = await confirmStep(ctx, 'submit_questionnaire', { category: args.category, version: p.progress.version, data: p.progress.data }, args.confirm, summary);
      if (c.status !== 'confirmed') return unconfirmed(c, summary, { submission: null });
      const r = await submitQuestionnaire(deps, auth.userId, args.category, l);
      const emergency = r.outcome === 'emergency' && r.emergency ? await fileRedFlag(ctx, r.id, r.emergency.codes) : null;
      return {
        emergency,
        data: {
          status: r.outcome === 'emergency' ? 'emergency' : 'submitted',
          summary,
          confirmation_token: null,
          expires_at: null,
          submission: { id: r.id, outcome: r.outcome, next_step: r.next_step ?? null, message: r.message, treatments: r.treatments.map((t) => t.treatment_id), created_at: r.created_at },
        },
        text: `Questionnaire submitted: ${r.outcome}. ${r.message}`.trim(),
      };
    },
  }),
  tool({
    name: 'confirm_renewal',
    title: 'Confirm a renewal (after the patient confirms)',
    description:
      'Confirms the patient’s pending renewal (dose, treatment, the renewal screen’s safety answers) through the same checks as the app; it then goes to a doctor’s review. Only after the patient confirms: through the client’s confirmation dialog (elicitation), or in two steps (the first call answers with a summary and a confirmation_token; show it to the patient and, when they agree, call again with the same input and confirm = the token). A red-flag answer stops it: the emergency notice, and the medical team’s red-flag desk is told.',
    scope: 'treatment:write',
    input: s.ConfirmRenewalIn,
    output: s.ConfirmRenewalOut,
    readOnly: false,
    openWorld: true,
    // Its free text is screened here, before a confirmation is offered.
    screensItself: true,
    async run(ctx, args) {
      const { deps, auth } = ctx;
      const { confirm, ...input } = args;
      const summaryOf = (status: 'emergency', text: string) => ({ status, summary: text, confirmation_token: null, expires_at: null, renewal: null });
      const category = await pendingRenewalCategory(ctx, input.consultation_id);
      if (!category) throw new ApiError(404, { detail: 'There is no pending renewal with this id for this patient.' });
      // The engine's red flags before anything is offered for confirmation (the same rule set and
      // answer checks as the confirm; the confirm below runs them again and decides).
      const version = currentVersion(category);
      if (!version) throw new ApiError(404, { detail: 'There is no pending renewal with this id for this patient.' });
      const set = renewalRuleSet(version, prescribingFor(category).renewal, input.changed ?? false);
      const now = deps.clock.now();
      const items = subs.renewalAnswers(set, input.answers ?? [], now);
      // The patient's own words (the change note, text answers) go through the one detector first.
      const textKeys = new Set(set.steps.flatMap((st) => st.questions.filter((qq) => qq.type === 'text').map((qq) => qq.question_key)));
      const texts = [input.change_note, ...items.filter((a) => textKeys.has(a.question_key) && typeof a.value === 'string').map((a) => String(a.value))];
      const words = await screenInputs(ctx, ...texts);
      if (words) return { emergency: words, data: summaryOf('emergency', 'A red flag in the answers: nothing was confirmed.'), text: 'Nothing was confirmed.' };
      const p = await getProfile(deps, auth.userId);
      const flags = redFlags(set, { date_of_birth: p.date_of_birth, gender: p.gender ?? null, country_of_residence: p.country_of_residence }, items, now);
      if (flags.length) {
        const emergency = await fileRedFlag(ctx, input.consultation_id, flags);
        return { emergency, data: summaryOf('emergency', 'A red flag in the renewal answers: nothing was confirmed.'), text: 'Nothing was confirmed.' };
      }
      const summary = `Confirm the ${category} renewal${input.treatment_id ? ` with ${input.treatment_id}` : ''}${input.dosage ? ` at ${input.dosage}` : ''} (${(input.answers ?? []).length} answer(s)${input.changed ? ', something changed since the last review' : ''}${input.fulfilment?.method === 'collection' ? ', collected at a partner pharmacy' : ''}); a doctor reviews it before anything is charged or sent.`;
      const c = await confirmStep(ctx, 'confirm_renewal', input, confirm, summary);
      if (c.status !== 'confirmed') return unconfirmed(c, summary, { renewal: null });
      try {
        const r = await subs.confirmRenewal(deps, auth.userId, { ...input, changed: input.changed ?? false, answers: input.answers ?? [], change_note: input.change_note ?? '' }, locale(ctx));
        return {
          data: {
            status: 'submitted',
            summary,
            confirmation_token: null,
            expires_at: null,
            renewal: { consultation_id: r.consultation_id, patient_choice_status: r.patient_choice_status, treatment_id: r.treatment_id, dosage: r.dosage, dose_change: r.dose_change, treatment_change: r.treatment_change },
          },
          text: `Renewal confirmed (${r.treatment_id} ${r.dosage}); a doctor reviews it next.`,
        };
      } catch (err) {
        // A red flag the confirm found: the desk is told here, so the notice may say so.
        if (err instanceof ApiError && err.body.code === 'renewal_emergency') {
          const codes = Array.isArray(err.body.reason_codes) ? err.body.reason_codes.filter((x): x is string => typeof x === 'string') : [];
          const emergency = await fileRedFlag(ctx, input.consultation_id, codes);
          return { emergency, data: summaryOf('emergency', 'A red flag in the renewal answers: nothing was confirmed.'), text: 'Nothing was confirmed.' };
        }
        throw err;
      }
    },
  }),
];

/**
 * The next injection day of a weekly plan (UTC calendar days): the first day on the plan's weekday
 * (0 = Monday) on or after the plan's start, today, and the day after the latest injection.
 */
export function nextInjectionOn(plan: { anchor_weekday: number; starts_on: string; active: boolean }, lastInjectedAt: string | null, now: Date): string | null {
  if (!plan.active) return null;
  const day = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  let from = Math.max(day(now), Date.parse(`${plan.starts_on.slice(0, 10)}T00:00:00Z`));
  if (lastInjectedAt) from = Math.max(from, day(new Date(lastInjectedAt)) + 86_400_000);
  const weekday = (new Date(from).getUTCDay() + 6) % 7; // 0 = Monday
  const next = new Date(from + (((plan.anchor_weekday - weekday + 7) % 7) * 86_400_000));
  return next.toISOString().slice(0, 10);
}

/** Files a red flag the engine raised on the desk (a connector input) and gives the notice to answer with: the notice says the team was told because the flag was just stored. */
async function fileRedFlag(ctx: ToolContext, sourceId: string | null, codes: string[]): Promise<EmergencyNotice | null> {
  const s = await screenFreeText(ctx.deps.db, { userId: ctx.auth.userId, source: 'connector', sourceId, texts: [], about: 'report', review: { codes: codes.length ? codes : ['red_flag'], notice: true } });
  return s.emergency;
}

/** The category of the patient's pending renewal with this id, or null (not theirs, not pending). */
async function pendingRenewalCategory(ctx: ToolContext, consultationId: string): Promise<string | null> {
  const list = await subs.listSubscriptions(ctx.deps, ctx.auth.userId, 100, 0);
  for (const category of new Set(list.results.map((x) => x.category))) {
    const o = await subs.renewalOptions(ctx.deps, ctx.auth.userId, category, locale(ctx));
    if (o.pending_consultation_id === consultationId) return category;
  }
  return null;
}

/** The answer of a submitting tool that did not submit: a confirmation to ask for, or the patient said no. */
function unconfirmed(c: Exclude<Confirmation, { status: 'confirmed' }>, summary: string, rest: Record<string, unknown>): ToolResult {
  if (c.status === 'not_submitted') return { data: { status: 'not_submitted', summary, confirmation_token: null, expires_at: null, ...rest }, text: 'The patient did not confirm: nothing was submitted.' };
  return {
    data: { status: 'confirmation_required', summary, confirmation_token: c.token, expires_at: c.expiresAt, ...rest },
    text: `Nothing was submitted yet. Show the patient this summary and ask them to confirm: ${summary} When they agree, call again with the same input and confirm = "${c.token}" (valid until ${c.expiresAt}, once).`,
  };
}

export const TOOL_SCOPES = new Map(TOOLS.map((t) => [t.name, t.scope]));
/** The tools that submit something behind a confirmation (their call may ask the patient through elicitation). */
export const CONFIRMING_TOOLS = new Set(['confirm_renewal', 'submit_questionnaire']);

/** What was refunded of a consultation's payments (null: nothing). */
function refundOf(payments: readonly { amount_cents: number; refunded_amount_cents: number; currency: string }[]) {
  const refunded = payments.filter((p) => p.refunded_amount_cents > 0);
  const first = refunded[0];
  if (!first) return null;
  return { refunded_cents: refunded.reduce((n, p) => n + p.refunded_amount_cents, 0), currency: first.currency, full: refunded.every((p) => p.refunded_amount_cents >= p.amount_cents) };
}

/** The text of a service refusal (field errors, a 403 without an active plan, a 404...). */
function refusal(err: ApiError): string {
  const b = err.body;
  if (typeof b.detail === 'string') return b.detail;
  if (typeof b.error === 'string') return b.error;
  if (typeof b.message === 'string') return b.message;
  if (typeof b.code === 'string') return b.code;
  return Object.entries(b)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`)
    .join('; ');
}

/** A service refusal of a tool whose input raised a red flag: the notice still comes first. */
class ScreenedRefusal extends Error {
  constructor(
    override readonly cause: ApiError,
    readonly emergency: EmergencyNotice,
  ) {
    super('refused');
  }
}

/** Every string among a tool's arguments (nested), for the red-flag screening. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsOf(x, out);
  return out;
}

/** One MCP server for one request (stateless): the tools of the authenticated patient. */
export function buildServer(deps: Deps, auth: McpAuth, record: (tool: string, outcome: string) => Promise<void>, opts: { elicits?: boolean } = {}): McpServer {
  const server = new McpServer(SERVER_INFO, {
    // Logging: `logging/setLevel` is answered; the stateless server sends no log notifications
    // (server logs stay on the server). Resources, prompts and completions: resources.ts.
    capabilities: { tools: {}, logging: {} },
    instructions:
      'Tools over one patient’s own records at a telemedicine service. The service is not an emergency service: when a result carries an emergency notice, show it to the patient first.',
  });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: `${tool.description} (scope: ${tool.scope})`,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.readOnly,
          destructiveHint: tool.destructive ?? false,
          idempotentHint: tool.idempotent ?? tool.readOnly,
          openWorldHint: tool.openWorld ?? false,
        },
      },
      async (args: unknown, extra): Promise<CallToolResult> => {
        // The client declared form elicitation: a submitting tool asks the patient through it.
        const elicit: Elicit | undefined = opts.elicits
          ? async (message) => {
              try {
                const answer = await extra.sendRequest(
                  {
                    method: 'elicitation/create',
                    params: {
                      message,
                      requestedSchema: {
                        type: 'object',
                        properties: { confirm: { type: 'boolean', title: 'Submit', description: 'Yes: submit it now. No: nothing is submitted.', default: false } },
                        required: ['confirm'],
                      },
                    },
                  },
                  ElicitResultSchema,
                  { timeout: ELICITATION_TIMEOUT_MS },
                );
                if (answer.action !== 'accept') return answer.action;
                return answer.content?.confirm === true ? 'accept' : 'decline';
              } catch {
                return 'unavailable';
              }
            }
          : undefined;
        const ctx: ToolContext = { deps, auth, elicit };
        try {
          // A red flag in any input (a category, a symptom, a dose...) raises the desk flag and puts
          // the notice first, even when the tool then refuses. The notice's wording ("passed to the
          // medical team") is only given when the flag was stored (screenFreeText stores it).
          const texts = tool.screensItself ? [] : stringsOf(args);
          const screened = texts.length ? await screenInputs(ctx, ...texts) : null;
          const r = await tool.run(ctx, args ?? {}).catch((err: unknown) => {
            if (screened && err instanceof ApiError) throw new ScreenedRefusal(err, screened);
            throw err;
          });
          const emergency = r.emergency ?? screened;
          await record(tool.name, 'ok');
          const structured = 'emergency' in tool.output.shape ? { emergency: emergency ?? null, ...r.data } : r.data;
          const content: CallToolResult['content'] = [];
          if (emergency) content.push({ type: 'text', text: `EMERGENCY: ${emergency.message} (${emergency.number})` });
          content.push({ type: 'text', text: r.text });
          content.push({ type: 'text', text: JSON.stringify(structured) });
          return { content, structuredContent: structured };
        } catch (err) {
          if (err instanceof ScreenedRefusal) {
            await record(tool.name, `refused:${err.cause.status}`);
            const n = err.emergency;
            return { isError: true, content: [{ type: 'text', text: `EMERGENCY: ${n.message} (${n.number})` }, { type: 'text', text: refusal(err.cause) }] };
          }
          if (err instanceof ApiError) {
            await record(tool.name, `refused:${err.status}`);
            return { isError: true, content: [{ type: 'text', text: refusal(err) }] };
          }
          await record(tool.name, 'error').catch(() => undefined);
          throw err;
        }
      },
    );
  }
  registerExtras(server, { deps, auth }, record);
  return server;
}
