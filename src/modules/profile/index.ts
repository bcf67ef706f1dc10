// What other modules may use of the profile module.
export { ageOn, getProfile, missingProfileFields, profileIncomplete } from './service.ts';
