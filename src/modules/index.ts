// Every domain module, registered in this order by buildApp. A module is a function that adds its
// routes (and scheduled jobs) to the app; its rules live in its service, its SQL in its repository.
import type { App } from '../app.ts';
import type { Deps } from '../deps.ts';
import accounts from './accounts/routes.ts';
import backoffice from './backoffice/routes.ts';
import billing from './billing/routes.ts';
import clinician from './clinician/routes.ts';
import journal from './journal/routes.ts';
import mcp from './mcp/routes.ts';
import messages from './messages/routes.ts';
import profile from './profile/routes.ts';
import questionnaires from './questionnaires/routes.ts';
import referrals from './referrals/routes.ts';
import subscriptions from './subscriptions/routes.ts';

export type Module = (app: App, deps: Deps) => Promise<void>;

export const MODULES: Module[] = [accounts, profile, questionnaires, billing, subscriptions, messages, journal, referrals, clinician, backoffice, mcp];
