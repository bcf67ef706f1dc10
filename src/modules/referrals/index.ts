// What other modules may use of referrals: the account's referral summary (the data export).
export { summary as referralSummary } from './service.ts';
export { referredByOf } from './service.ts';
