// Every domain module, registered in this order by buildApp. A module is a function that adds its
// routes (and scheduled jobs) to the app; its rules live in its service, its SQL in its repository.
import type { ModulePlugin } from '../http/plugin.ts';
import accounts from './accounts/routes.ts';
import backoffice from './backoffice/routes.ts';
import checkout from './checkout/routes.ts';
import consultations from './consultations/routes.ts';
import fulfilment from './fulfilment/routes.ts';
import payments from './payments/routes.ts';
import pharmacy from './pharmacy/routes.ts';
import pharmacies from './pharmacies/routes.ts';
import photos from './photos/routes.ts';
import clinician from './clinician/routes.ts';
import compliance from './compliance/routes.ts';
import journal from './journal/routes.ts';
import mcp from './mcp/routes.ts';
import notifications from './notifications/routes.ts';
import messages from './messages/routes.ts';
import privacy from './privacy/routes.ts';
import profile from './profile/routes.ts';
import questionnaires from './questionnaires/routes.ts';
import redFlags from './redflags/routes.ts';
import referrals from './referrals/routes.ts';
import subscriptions from './subscriptions/routes.ts';
import verification from './verification/routes.ts';
import signing from './signing/routes.ts';
import interop from './interop/routes.ts';
import appointments from './appointments/routes.ts';


export const MODULES: ModulePlugin[] = [accounts, profile, questionnaires, checkout, payments, fulfilment, consultations, subscriptions, messages, journal, referrals, clinician, redFlags, backoffice, pharmacy, mcp, privacy, pharmacies, verification, photos, compliance, notifications, signing, interop, appointments];
