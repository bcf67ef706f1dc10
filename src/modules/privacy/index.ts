// What other modules may use of the privacy module: whether an account may receive marketing mail
// (its marketing consent, granted and not withdrawn). Anything that sends marketing asks this first.
export { mayReceiveMarketing } from './service.ts';
