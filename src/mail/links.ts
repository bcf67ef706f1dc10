// Links in mails: each one opens a page of the web app (web/src/routes.json lists the app's pages;
// test/web-app.test.ts checks every link here lands on one). The base is WEB_APP_URL, by default the
// service itself, which serves the app (src/web.ts).
import type { Config } from '../config.ts';

type Base = Pick<Config, 'WEB_APP_URL'>;

export const appLinks = {
  consultation: (c: Base, consultationId: string) => `${c.WEB_APP_URL}/consultations/${encodeURIComponent(consultationId)}`,
  messages: (c: Base) => `${c.WEB_APP_URL}/messages`,
  payments: (c: Base) => `${c.WEB_APP_URL}/payments`,
  orders: (c: Base) => `${c.WEB_APP_URL}/orders`,
  prescriptions: (c: Base) => `${c.WEB_APP_URL}/prescriptions`,
  // Printed on a signed prescription: the public verify page, which reads `code` (the prescription it expects).
  verifyPrescription: (c: Base, prescriptionId: string) => `${c.WEB_APP_URL}/verify?code=${encodeURIComponent(prescriptionId)}`,
  renewal: (c: Base) => `${c.WEB_APP_URL}/renewal`,
  plan: (c: Base) => `${c.WEB_APP_URL}/plan`,
  resetPassword: (c: Base, token: string) => `${c.WEB_APP_URL}/reset-password?token=${encodeURIComponent(token)}`,
  referral: (c: Base, code: string) => `${c.WEB_APP_URL}/r/${encodeURIComponent(code)}`,
  // The account page (its "Connected assistants" section lists and disconnects the connector's grants).
  account: (c: Base) => `${c.WEB_APP_URL}/profile`,
  // The public cancellation page (§ 312k BGB) and its one-click confirmation (docs/compliance.md).
  cancel: (c: Base) => `${c.WEB_APP_URL}/cancel`,
  cancelConfirm: (c: Base, token: string) => `${c.WEB_APP_URL}/cancel/confirm?token=${encodeURIComponent(token)}`,
};
