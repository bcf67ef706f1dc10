// A patient's journey written against the client generated from the OpenAPI document
// (openapi-typescript + openapi-fetch), with no casts: test/openapi-client.test.ts generates
// `./api.d.ts` next to a copy of this file, typechecks it with tsc, and runs it against the app.
// If the document is wrong (a missing header, a renamed field, a JSON download), this stops
// compiling or fails at run time. Excluded from the root tsconfig: api.d.ts exists only there.
import type { Client } from 'openapi-fetch';
import type { paths } from './api.js';

export interface JourneyHooks {
  /** The brand identifier the service answers for (X-Brand-Slug). */
  brand: string;
  /** The 6-digit code mailed to `email`. */
  readCode(email: string): Promise<string>;
  /** Presses "Pay" on the provider's checkout page. */
  pay(checkoutUrl: string): Promise<void>;
}

export interface JourneyResult {
  outcome: string;
  consultationStatus: string;
  invoiceBytes: number;
  messages: number;
  subscriptions: number;
}

function fail(step: string, error: unknown): never {
  throw new Error(`${step}: ${JSON.stringify(error)}`);
}

export async function patientJourney(api: Client<paths>, email: string, password: string, hooks: JourneyHooks): Promise<JourneyResult> {
  const brand = { header: { 'X-Brand-Slug': hooks.brand } };

  const registered = await api.POST('/v1/users/register/', { params: brand, body: { email, password, first_name: 'Ada', last_name: 'Lovelace', locale: 'en' } });
  if (!registered.data) fail('register', registered.error);

  const verified = await api.POST('/v1/users/verify-email/', { params: brand, body: { email, otp: await hooks.readCode(email) } });
  if (!verified.data) fail('verify', verified.error);

  const signedIn = await api.POST('/v1/users/token/', { params: brand, body: { email, password } });
  if (!signedIn.data) {
    // The error is typed by status: invalid_credentials, user_inactive, throttled...
    const code = signedIn.error && 'code' in signedIn.error ? signedIn.error.code : 'unknown';
    fail(`sign-in (${code})`, signedIn.error);
  }
  const refreshed = await api.POST('/v1/users/token/refresh/', { params: brand, body: { refresh: signedIn.data.refresh } });
  if (!refreshed.data) fail('refresh', refreshed.error);
  const auth = { Authorization: `Bearer ${refreshed.data.access}` };

  const profile = await api.PATCH('/v1/users/profile/me/', { headers: auth, body: { date_of_birth: '1985-04-12', country_of_residence: 'DEU', gender: '0' } });
  if (!profile.data) fail('profile', profile.error);

  const categories = await api.GET('/v1/users/questionnaires/categories/', { params: { query: { locale: 'en' } } });
  if (!categories.data) fail('categories', categories.error);
  const weightLoss = categories.data.categories.find((c) => c.slug === 'weight_loss');
  if (!weightLoss) fail('categories', 'no weight_loss');

  const slug = { path: { slug: weightLoss.slug } };
  const saved = await api.PATCH('/v1/users/questionnaires/{slug}/progress/', {
    headers: auth,
    params: slug,
    body: {
      data: [
        { step_id: 1, question_key: 'urgent_symptoms', values: { none: true } },
        { step_id: 2, question_key: 'height_cm', value: 170 },
        { step_id: 2, question_key: 'weight_kg', value: 100 },
        { step_id: 2, question_key: 'weight_conditions', values: { none: true } },
        { step_id: 3, question_key: 'mtc_or_men2', value: false },
        { step_id: 3, question_key: 'glp1_allergy', value: false },
        { step_id: 3, question_key: 'pancreatitis_history', value: false },
        { step_id: 3, question_key: 'other_glp1', value: false },
        { step_id: 3, question_key: 'insulin_or_sulfonylurea', value: false },
        { step_id: 3, question_key: 'eating_disorder', value: false },
      ],
    },
  });
  if (!saved.data) fail('progress', saved.error);
  const submitted = await api.POST('/v1/users/questionnaires/{slug}/submit/', { headers: auth, params: slug });
  if (!submitted.data) fail('submit', submitted.error);

  const checkout = await api.POST('/v1/users/checkout/', { headers: auth, body: { category: weightLoss.slug, plan: 'subscription' } });
  if (!checkout.data) {
    const name = checkout.error && 'error_name' in checkout.error ? checkout.error.error_name : 'fields';
    fail(`checkout (${name})`, checkout.error);
  }
  const { checkout_url, session_id } = checkout.data;
  if (!checkout_url || !session_id) fail('checkout', 'no provider page');
  await hooks.pay(checkout_url);
  const session = await api.GET('/v1/users/sandbox/session/{id}/', { headers: auth, params: { path: { id: session_id } } });
  if (!session.data) fail('session', session.error);

  const consultations = await api.GET('/v1/users/consultations/', { headers: auth, params: { query: { limit: 10, offset: 0 } } });
  if (!consultations.data) fail('consultations', consultations.error);
  const consultation = consultations.data.results[0];
  if (!consultation) fail('consultations', 'none');

  const payments = await api.GET('/v1/users/payments/', { headers: auth, params: { query: { limit: 10 } } });
  if (!payments.data) fail('payments', payments.error);
  const payment = payments.data.results[0];
  if (!payment) fail('payments', 'none');
  const invoice = await api.GET('/v1/users/payments/{id}/invoice/', { headers: auth, params: { path: { id: payment.id } }, parseAs: 'blob' });
  if (!invoice.data) fail('invoice', invoice.error);

  const conversations = await api.GET('/v1/users/conversations/', { headers: auth });
  if (!conversations.data) fail('conversations', conversations.error);
  const conversation = conversations.data.results[0];
  if (!conversation) fail('conversations', 'none');
  const thread = { path: { id: conversation.id } };
  const text = await api.POST('/v1/users/conversations/{id}/messages/', { headers: auth, params: thread, body: { content: 'When will a doctor look at my answers?' } });
  if (!text.data) fail('message', text.error);
  const png = new Blob([Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))], { type: 'image/png' });
  const upload = await api.POST('/v1/users/conversations/{id}/messages/', {
    headers: auth,
    params: thread,
    body: { file: png, content: 'A photo of my prescription' },
    bodySerializer: (body) => {
      const form = new FormData();
      if ('file' in body) form.append('file', body.file, 'photo.png');
      if (body.content) form.append('content', body.content);
      return form;
    },
  });
  if (!upload.data) fail('upload', upload.error);
  const messages = await api.GET('/v1/users/conversations/{id}/messages/', { headers: auth, params: thread });
  if (!messages.data) fail('messages', messages.error);

  const subscriptions = await api.GET('/v1/users/subscriptions/', { headers: auth });
  if (!subscriptions.data) fail('subscriptions', subscriptions.error);

  const out = await api.POST('/v1/users/logout/', { headers: auth, body: {} });
  if (!out.data) fail('logout', out.error);

  return {
    outcome: submitted.data.outcome,
    consultationStatus: consultation.status,
    invoiceBytes: invoice.data.size,
    messages: messages.data.length,
    subscriptions: subscriptions.data.count,
  };
}
