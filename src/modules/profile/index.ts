// What other modules may use of the profile module.
export { ageOn, missingProfileFields, profileIncomplete } from './service.ts';
